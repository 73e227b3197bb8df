/**
 * Images of the container backends. No registry is needed for the default base: the image is imported
 * (`podman import` / `docker import`) from envproof's own root filesystem of the language (the debootstrap base
 * plus the toolchain, plus any --system-packages), so that podman, docker and bwrap run exactly the same system,
 * and the image's file system stays readable from the host (the root filesystem it was made from).
 * `ubuntu` (ubuntu:22.04, the paper's base) is built from a Dockerfile and needs the image from a registry.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { EnvproofError, UsageError } from '../core/errors.js';
import { runProcess, tail } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { HOST_ENV, type ContainerEngine } from './engine.js';
import { withDirLock } from './lock.js';
import { debianPackages, recipeProvision } from './recipes.js';
import { ensureEnvironment, MARKER_FILE, PRIVATE_TOP_LEVEL, type EnvMarker, type Progress } from './rootfs.js';

export const IMAGE_BASES = ['debian', 'ubuntu'] as const;
/** Base images: Debian (envproof's own root filesystem, the same system as bwrap's) or Ubuntu 22.04, as in the paper. */
export type ImageBase = (typeof IMAGE_BASES)[number];
export const UBUNTU_IMAGE = 'docker.io/library/ubuntu:22.04';


export interface ContainerImage {
  tag: string;
  /** Host directory holding the image's file system (the root filesystem it was imported from, or an export). */
  rootOnHost: string;
  /** For an image imported from a root filesystem, that root filesystem's marker (baseline, system packages). */
  marker?: EnvMarker;
}

/** The recipe of an ubuntu image: the paper's base plus the same package list as the root filesystems. */
export function dockerfile(language: EcosystemId, systemPackages: readonly string[] = []): string {
  return [
    `FROM ${UBUNTU_IMAGE}`,
    `LABEL org.envproof.language="${language}" org.envproof.base="ubuntu"`,
    'ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8',
    'RUN apt-get update \\',
    ` && apt-get install -y --no-install-recommends ${[...debianPackages(language), ...systemPackages].join(' ')} \\`,
    ' && rm -rf /var/lib/apt/lists/*',
    '',
  ].join('\n');
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** Image name whose tag changes with what it is made from, so a rebuilt root filesystem or changed recipe is a new image. */
export function imageTag(language: EcosystemId, base: ImageBase, recipe: string): string {
  return `envproof-${language}-${base}:${digest(recipe)}`;
}

async function imageExists(engine: ContainerEngine, tag: string): Promise<boolean> {
  return (await runProcess([engine, 'image', 'inspect', tag], { env: HOST_ENV(), timeoutMs: 60_000 })).exitCode === 0;
}

async function step(what: string, argv: string[], timeoutMs: number): Promise<void> {
  const r = await runProcess(argv, { env: HOST_ENV(), timeoutMs });
  if (r.exitCode !== 0) throw new EnvproofError(`${what} failed (${r.timedOut ? 'timed out' : `exit ${r.exitCode}`})`, undefined, tail(`${r.stdout}\n${r.stderr}`, 30));
}

/** Runs `make` under a lock per image, unless the image exists (another process may have made it meanwhile). */
async function once(engine: ContainerEngine, tag: string, progress: Progress, make: () => Promise<void>): Promise<void> {
  if (await imageExists(engine, tag)) return;
  const dir = path.join(cacheRoot(), 'images');
  await mkdir(dir, { recursive: true });
  await withDirLock(path.join(dir, `.${tag.replace(/[^\w.-]/g, '_')}.lock`), (pid) => progress(`waiting for another envproof process (pid ${pid}) making ${tag}`), async () => {
    if (!(await imageExists(engine, tag))) await make();
  });
}

/** The image for `language`: imported from its root filesystem (debian) or built on ubuntu:22.04. */
export async function ensureImage(
  engine: ContainerEngine,
  language: EcosystemId,
  base: ImageBase,
  systemPackages: readonly string[],
  progress: Progress,
): Promise<ContainerImage> {
  if (base === 'ubuntu') return ensureUbuntuImage(engine, language, systemPackages, progress);
  const env = await ensureEnvironment(language, { progress, systemPackages });
  const markerText = await readFile(path.join(env.dir, MARKER_FILE), 'utf8');
  const tag = imageTag(language, 'debian', markerText);
  await once(engine, tag, progress, async () => {
    progress(`${language}: importing ${env.dir} as image ${tag} (${engine} import)`);
    const started = performance.now();
    const entries = readdirSync(env.dir).filter((e) => !PRIVATE_TOP_LEVEL.has(e)).map((e) => `./${e}`);
    // The runtime's mount points must exist in a read-only image: they are added, empty.
    const script = [
      'set -eo pipefail',
      'dir=$1 engine=$2 tag=$3 language=$4; shift 4',
      'tar -C "$dir" -c --no-recursion ./dev ./proc ./sys ./tmp --recursion "$@" |',
      '  "$engine" import --change "ENV LANG=C.UTF-8" --change "LABEL org.envproof.language=$language org.envproof.base=debian" - "$tag"',
    ].join('\n');
    await step(`${engine} import of ${env.dir}`, ['bash', '-c', script, 'bash', env.dir, engine, tag, language, ...entries], 30 * 60_000);
    progress(`${language}: image ${tag} ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
  return { tag, rootOnHost: env.dir, marker: env.marker };
}

/**
 * The paper's base: ubuntu:22.04 must already be in the engine's store or be pulled from a registry; where it
 * cannot be had, the error says so and points to the Debian base. The image's file system is exported once
 * under the cache so that envproof can read it from the host.
 */
async function ensureUbuntuImage(engine: ContainerEngine, language: EcosystemId, systemPackages: readonly string[], progress: Progress): Promise<ContainerImage> {
  // The provisioned toolchain (Node.js 20, Go) is unpacked into envproof's own root filesystem; a Dockerfile on
  // ubuntu:22.04 would get Ubuntu's packages only, which break the prompt's promise (Node 12, no Go).
  const provision = recipeProvision(language);
  if (provision) {
    throw new UsageError(
      `--image-base ubuntu cannot give the ${language} environment what its prompt promises: ${provision.id} is installed into envproof's Debian root filesystem only`,
      'use --image-base debian (the default; docs/environments.md)',
    );
  }
  const recipe = dockerfile(language, systemPackages);
  const tag = imageTag(language, 'ubuntu', recipe);
  await once(engine, tag, progress, async () => {
    if (!(await imageExists(engine, UBUNTU_IMAGE))) {
      progress(`pulling ${UBUNTU_IMAGE} (the paper's base image)`);
      const pull = await runProcess([engine, 'pull', UBUNTU_IMAGE], { env: HOST_ENV(), timeoutMs: 5 * 60_000 });
      if (pull.exitCode !== 0) {
        throw new EnvproofError(
          `--image-base ubuntu needs the image ${UBUNTU_IMAGE} from a registry, and it cannot be had here: ${(pull.stderr.trim().split('\n').at(-1) ?? '').slice(0, 300)}`,
          `use --image-base debian (the default: built from envproof's own Debian root filesystem, no registry needed), or load the image into ${engine} yourself (\`${engine} load -i ubuntu-22.04.tar\`)`,
        );
      }
    }
    progress(`${language}: building ${tag} on ${UBUNTU_IMAGE}`);
    const r = await runProcess([engine, 'build', '-t', tag, '-'], { env: HOST_ENV(), timeoutMs: 60 * 60_000, stdin: recipe });
    if (r.exitCode !== 0) {
      throw new EnvproofError(`${engine} build of ${tag} failed`, "the Ubuntu archive must be reachable from the engine's network", tail(`${r.stdout}\n${r.stderr}`, 30));
    }
  });
  return { tag, rootOnHost: await exportedFileSystem(engine, tag) };
}

/** The image's file system unpacked under the cache (once per tag), for reading from the host. */
async function exportedFileSystem(engine: ContainerEngine, tag: string): Promise<string> {
  const dir = path.join(cacheRoot(), 'images', tag.replace(/[^\w.-]/g, '_'));
  if (existsSync(path.join(dir, '.envproof-exported'))) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const name = `envproof-export-${process.pid}-${digest(tag)}`;
  await step(`${engine} create`, [engine, 'create', '--name', name, tag, 'true'], 120_000);
  try {
    await step(`${engine} export`, ['sh', '-c', '"$1" export "$2" | tar -x -C "$3"', 'sh', engine, name, dir], 30 * 60_000);
  } finally {
    await runProcess([engine, 'rm', '--force', name], { env: HOST_ENV(), timeoutMs: 60_000 });
  }
  await writeFile(path.join(dir, '.envproof-exported'), `${tag}\n`);
  return dir;
}
