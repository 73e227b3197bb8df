import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { EnvproofError, UsageError } from '../core/errors.js';
import { describeFailure, runProcess, tail, type ProcessResult } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { brokenPromises, measurePromise, toolsLabel, toolVersions } from '../ecosystems/promise.js';
import { withDirLock } from './lock.js';
import { hostDebianMirror } from './mirror.js';
import { baselineQueries, debianPackages, DEBIAN_SUITE, DPKG_QUERY_ARGV, parseDpkgQuery, recipeOf, recipeProvision } from './recipes.js';
import type { SandboxBaseline, SystemPackage } from './types.js';

/** Written last into a finished root filesystem; a directory without it is a broken build and is rebuilt. */
export const MARKER_FILE = '.envproof-env.json';
/**
 * Top-level entries of a root filesystem that sandboxed programs never see from it: the sandbox provides fresh
 * /dev, /proc, /sys and /tmp, the homes stay invisible, the marker is envproof's.
 */
export const PRIVATE_TOP_LEVEL: ReadonlySet<string> = new Set(['dev', 'proc', 'sys', 'tmp', 'root', 'home', MARKER_FILE]);
const MARKER_FORMAT = 1;
/** Below this much free space a build is refused before it starts, rather than half-written. */
export const MIN_FREE_BYTES = 3 * 1024 ** 3;

export interface EnvMarker {
  format: number;
  language: EcosystemId;
  suite: string;
  mirror: string;
  /** The recipe's package list when it was built; a different recipe means a rebuild. */
  requested: string[];
  /** A derived environment: the Debian packages added to the language's own (--system-packages). */
  systemPackages?: string[];
  /** A derived environment: when the language's environment it was copied from was built; a rebuilt parent means a rebuild. */
  parentBuiltAt?: string;
  builtAt: string;
  buildSeconds: number;
  /** Debian package name → version (`dpkg-query -W`). */
  debian: Record<string, string>;
  /** Package manager (pip, npm, pkg-config) → name → version, as that manager lists them. */
  packages: Record<string, Record<string, string>>;
  /**
   * The tools the task prompts promise (node, javac, g++, …) → the version the environment runs, as they reported
   * it when it was built (src/ecosystems/promise.ts); absent in environments built before envproof recorded them.
   */
  tools?: Record<string, string>;
}

export interface Environment {
  language: EcosystemId;
  dir: string;
  marker: EnvMarker;
}

export type Progress = (message: string) => void;

export function rootfsRoot(): string {
  return path.join(cacheRoot(), 'rootfs');
}

/**
 * Directory name of an environment: the language, or for a derived one (extra Debian packages) the language
 * and a hash of the package list, e.g. `cpp+3f2a9c01d4`.
 */
export function environmentName(language: EcosystemId, systemPackages: readonly string[] = []): string {
  if (systemPackages.length === 0) return language;
  return `${language}+${createHash('sha256').update(systemPackages.join(' ')).digest('hex').slice(0, 10)}`;
}

export function rootfsDir(language: EcosystemId, systemPackages: readonly string[] = []): string {
  return path.join(rootfsRoot(), environmentName(language, systemPackages));
}

export type EnvironmentStatus = 'ready' | 'missing' | 'unfinished' | 'outdated';

export async function readMarker(dir: string): Promise<EnvMarker | null> {
  const text = await readFile(path.join(dir, MARKER_FILE), 'utf8').catch(() => null);
  try {
    return JSON.parse(text ?? '') as EnvMarker;
  } catch {
    return null;
  }
}

/**
 * What is on disk for `language` (plus `systemPackages`, sorted): ready, missing, unfinished (no valid marker)
 * or outdated (built from another recipe, or derived from an environment that has been rebuilt since).
 */
export async function inspectEnvironment(
  language: EcosystemId,
  systemPackages: readonly string[] = [],
): Promise<{ status: EnvironmentStatus; marker?: EnvMarker }> {
  const dir = rootfsDir(language, systemPackages);
  if (!existsSync(dir)) return { status: 'missing' };
  const marker = await readMarker(dir);
  if (!marker) return { status: 'unfinished' };
  const sameRecipe =
    marker.format === MARKER_FORMAT &&
    marker.language === language &&
    marker.requested.join(' ') === recipeOf(language).join(' ') &&
    (marker.systemPackages ?? []).join(' ') === systemPackages.join(' ');
  if (!sameRecipe) return { status: 'outdated', marker };
  if (systemPackages.length > 0) {
    const parent = await inspectEnvironment(language);
    if (parent.status !== 'ready' || parent.marker?.builtAt !== marker.parentBuiltAt) return { status: 'outdated', marker };
  }
  return { status: 'ready', marker };
}

/** The finished environment, or null when it is missing, unfinished or outdated. */
export async function readEnvironment(language: EcosystemId, systemPackages: readonly string[] = []): Promise<Environment | null> {
  const { status, marker } = await inspectEnvironment(language, systemPackages);
  return status === 'ready' && marker ? { language, dir: rootfsDir(language, systemPackages), marker } : null;
}

export function baselineOf(marker: EnvMarker): SandboxBaseline {
  return {
    debian: Object.keys(marker.debian).sort(),
    packages: Object.fromEntries(Object.entries(marker.packages).map(([m, pkgs]) => [m, Object.keys(pkgs).sort()])),
    ...(marker.tools ? { tools: marker.tools } : {}),
  };
}

/**
 * Debian package names as Debian policy allows them (lower case, digits, `+`, `-`, `.`; at least two characters);
 * anything else is refused before it reaches a shell or apt.
 */
const DEBIAN_PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

/** The `--system-packages` list checked, sorted and without duplicates; a clear error for a name Debian cannot have. */
export function normaliseSystemPackages(names: readonly string[]): string[] {
  const bad = names.filter((n) => !DEBIAN_PACKAGE_NAME.test(n));
  if (bad.length > 0) {
    throw new UsageError(`not a Debian package name: ${bad.map((n) => JSON.stringify(n)).join(', ')}`, 'give Debian package names, comma-separated, e.g. --system-packages libbrotli-dev,libfmt-dev');
  }
  return [...new Set(names)].sort();
}

/** The packages a derived environment added, with their installed versions. */
export function systemPackagesOf(marker: EnvMarker): SystemPackage[] {
  return (marker.systemPackages ?? []).map((name) => ({ name, version: marker.debian[name] ?? '' }));
}

/**
 * The environment for `language`, built first when it is missing or broken (or always, with `force`). With
 * `systemPackages`, the derived environment: the language's own (built first if needed) plus those Debian
 * packages, built once and cached under its own name.
 */
export async function ensureEnvironment(
  language: EcosystemId,
  opts: { force?: boolean; progress?: Progress; systemPackages?: readonly string[] } = {},
): Promise<Environment> {
  const progress = opts.progress ?? (() => {});
  const extra = normaliseSystemPackages(opts.systemPackages ?? []);
  if (!opts.force) {
    const ready = await readEnvironment(language, extra);
    if (ready) return ready;
  }
  const parent = extra.length > 0 ? await ensureEnvironment(language, { progress }) : undefined;
  const name = environmentName(language, extra);
  await mkdir(rootfsRoot(), { recursive: true });
  const lock = path.join(rootfsRoot(), `.${name}.lock`);
  return withDirLock(
    lock,
    (pid) => progress(`waiting for another envproof process (pid ${pid}) building the ${name} environment`),
    async () => {
      // Another process may have finished the build while we waited.
      const ready = opts.force ? null : await readEnvironment(language, extra);
      return ready ?? buildEnvironment({ language, extra, parent, force: opts.force ?? false, progress });
    },
  );
}

interface BuildRequest {
  language: EcosystemId;
  extra: readonly string[];
  parent: Environment | undefined;
  force: boolean;
  progress: Progress;
}

/**
 * Builds into a temporary directory, writes the marker last, then renames into place. A language's own
 * environment starts from the base system; a derived one from a copy of the language's environment.
 */
async function buildEnvironment(req: BuildRequest): Promise<Environment> {
  await checkCanBuild();
  const buildDir = path.join(rootfsRoot(), `.${environmentName(req.language, req.extra)}.building`);
  await removeTree(buildDir);
  try {
    return await buildInto(buildDir, req);
  } catch (e) {
    // A half-built tree is of no use (the next build starts over) and holds hundreds of megabytes.
    await removeTree(buildDir);
    throw e;
  }
}

async function buildInto(buildDir: string, { language, extra, parent, force, progress }: BuildRequest): Promise<Environment> {
  const root = rootfsRoot();
  const name = environmentName(language, extra);
  const finalDir = rootfsDir(language, extra);
  const started = performance.now();
  if (existsSync(finalDir) && !existsSync(path.join(finalDir, MARKER_FILE))) {
    progress(`${name}: the existing environment is unfinished (no ${MARKER_FILE}); rebuilding it`);
  }
  const mirror = parent?.marker.mirror ?? (await hostDebianMirror(DEBIAN_SUITE));
  const packages = debianPackages(language);

  if (parent) {
    progress(`${name}: copying the ${language} environment`);
    await step('copying the environment', ['cp', '-a', '--reflink=auto', parent.dir, buildDir], 10 * 60_000);
    await rm(path.join(buildDir, MARKER_FILE));
  } else {
    const base = await ensureBaseArchive(mirror, force, progress);
    progress(`${language}: unpacking the ${DEBIAN_SUITE} base system`);
    await mkdir(buildDir);
    await step('unpacking the base system', ['tar', '-xpf', base, '-C', buildDir], 10 * 60_000);
  }

  const toInstall = parent ? extra : packages;
  progress(`${name}: installing ${toInstall.join(', ')}`);
  await aptInstall(buildDir, toInstall, parent !== undefined);
  const provision = recipeProvision(language);
  if (provision && !parent) await provision.install(buildDir, (m) => progress(`${name}: ${m}`));
  // Mount points for the host's DNS configuration, bound read-only at run time.
  for (const f of ['etc/resolv.conf', 'etc/hosts']) await writeFile(path.join(buildDir, f), '', { flag: 'a' });

  const tools = await keptPromise(language, buildDir);
  progress(`${name}: ${toolsLabel(tools)}`);
  progress(`${name}: recording the baseline (Debian packages and the package manager's own list)`);
  const debian = parseDpkgQuery(await step('dpkg-query', inRootfs(buildDir, DPKG_QUERY_ARGV), 60_000));
  const managed: Record<string, Record<string, string>> = {};
  for (const q of baselineQueries(language)) {
    managed[q.manager] = q.parse(await step(`${q.manager} baseline`, inRootfs(buildDir, q.argv), 120_000));
  }
  const marker: EnvMarker = {
    format: MARKER_FORMAT,
    language,
    suite: DEBIAN_SUITE,
    mirror,
    requested: recipeOf(language),
    ...(parent ? { systemPackages: [...extra], parentBuiltAt: parent.marker.builtAt } : {}),
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    debian,
    packages: managed,
    tools,
  };
  await step('sync', ['sync', '--file-system', buildDir], 10 * 60_000);
  await writeFile(path.join(buildDir, MARKER_FILE), `${JSON.stringify(marker, null, 1)}\n`);

  const oldDir = path.join(root, `.${name}.old`);
  await removeTree(oldDir);
  if (existsSync(finalDir)) await rename(finalDir, oldDir);
  await rename(buildDir, finalDir);
  await removeTree(oldDir);
  progress(`${name}: environment ready in ${marker.buildSeconds} s (${Object.keys(debian).length} Debian packages)`);
  return { language, dir: finalDir, marker };
}

/** The promised tools' versions in the tree under construction; an environment that breaks the prompts' promise is refused. */
async function keptPromise(language: EcosystemId, buildDir: string): Promise<Record<string, string>> {
  const results = await measurePromise(language, (argv) => runProcess(inRootfs(buildDir, argv), { env: hostPath(), timeoutMs: 120_000 }));
  const broken = brokenPromises(results);
  if (broken.length > 0) {
    throw new EnvproofError(
      `the ${language} environment does not have what the task prompts promise: ${broken.join('; ')}`,
      `the recipe (src/ecosystems/${language}/facts.ts) and the prompt's promise must agree; see docs/environments.md`,
    );
  }
  return toolVersions(results);
}

/**
 * apt-get install inside a tree under construction. apt needs writable /tmp for its _apt user; lists and
 * downloaded .debs are dropped to keep the cache small. dpkg's fsync per file is skipped (unsafe-io): an
 * interrupted build is thrown away anyway, and the tree is synced once before the marker is written. A
 * policy-rc.d refuses to start services (a server package's postinst would try to), as in any chroot build.
 * A name apt does not know is the user's error (`userNamed`: the names came from --system-packages).
 */
async function aptInstall(buildDir: string, packages: readonly string[], userNamed: boolean): Promise<void> {
  const policy = path.join(buildDir, 'usr/sbin/policy-rc.d');
  await writeFile(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  const install = [
    'apt-get update -qq',
    `apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io ${packages.join(' ')}`,
    'apt-get clean',
    'rm -rf /var/lib/apt/lists/*',
  ].join(' && ');
  const r = await runProcess(inRootfs(buildDir, ['sh', '-c', install], { writable: true, network: true }), { env: hostPath(), timeoutMs: 30 * 60_000 });
  await rm(policy, { force: true });
  const output = `${r.stdout}\n${r.stderr}`;
  const unknown = [...output.matchAll(/Unable to locate package (\S+)|Package '?([^' ]+)'? has no installation candidate/g)].map((m) => m[1] ?? m[2]);
  if (r.exitCode !== 0 && userNamed && unknown.length > 0) {
    throw new UsageError(
      `Debian ${DEBIAN_SUITE} has no installable package ${unknown.join(', ')} (--system-packages)`,
      'check the name with `apt-cache search <word>` or on packages.debian.org',
      tail(output, 30),
    );
  }
  failedStep('apt-get install', r);
}

/** The build command for a user who is not root; root's cache directory would be elsewhere, so it is passed on. */
export function sudoBuildCommand(what: string): string {
  return `sudo ENVPROOF_CACHE_DIR=${cacheRoot()} envproof env build ${what}`;
}

/** Base archives made by this process: `--force` rebuilds the base once, not once per language. */
const freshBases = new Set<string>();

/**
 * The minimal Debian every environment starts from (debootstrap minbase), kept as a tar archive so that each
 * language's build unpacks it in seconds instead of running debootstrap again. Written atomically, like the
 * environments, and keyed by suite and mirror.
 */
async function ensureBaseArchive(mirror: string, force: boolean, progress: Progress): Promise<string> {
  const key = createHash('sha256').update(mirror).digest('hex').slice(0, 8);
  const archive = path.join(rootfsRoot(), `.base-${DEBIAN_SUITE}-${key}.tar`);
  if (existsSync(archive) && (!force || freshBases.has(archive))) return archive;
  return withDirLock(
    `${archive}.lock`,
    (pid) => progress(`waiting for another envproof process (pid ${pid}) building the base system`),
    async () => {
      if (existsSync(archive) && (!force || freshBases.has(archive))) return archive;
      const dir = `${archive}.building`;
      await removeTree(dir);
      progress(`debootstrap ${DEBIAN_SUITE} (minbase) from ${mirror}`);
      await step('debootstrap', ['debootstrap', '--variant=minbase', DEBIAN_SUITE, dir, mirror], 30 * 60_000);
      await step('archiving the base system', ['tar', '-cpf', `${archive}.part`, '-C', dir, '.'], 10 * 60_000);
      await rename(`${archive}.part`, archive);
      await removeTree(dir);
      freshBases.add(archive);
      return archive;
    },
  );
}

async function checkCanBuild(): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new EnvproofError(
      'building a root filesystem needs root (debootstrap creates device nodes and file owners)',
      `run \`${sudoBuildCommand('<language>')}\` once, or use --sandbox host`,
    );
  }
  const missing = ['debootstrap', 'bwrap'].filter((c) => !commandExists(c));
  if (missing.length > 0) {
    throw new EnvproofError(`cannot build environments: ${missing.join(', ')} not installed`, 'apt-get install -y debootstrap bubblewrap');
  }
  await mkdir(rootfsRoot(), { recursive: true });
  const fs = await statfs(rootfsRoot());
  if (fs.bavail * fs.bsize < MIN_FREE_BYTES) {
    throw new EnvproofError(
      `not enough free disk space under ${rootfsRoot()} (${gib(fs.bavail * fs.bsize)} GiB free, ${gib(MIN_FREE_BYTES)} GiB needed)`,
      'free some space or point ENVPROOF_CACHE_DIR to a larger disk',
    );
  }
}

const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);

/** Where `name` is on the PATH (or in /usr/sbin, /sbin, which a non-root PATH may lack), or null. */
export function commandPath(name: string): string | null {
  const dirs = (process.env.PATH ?? '/usr/bin:/bin').split(':').concat(['/usr/sbin', '/sbin']);
  const dir = dirs.find((d) => d !== '' && existsSync(path.join(d, name)));
  return dir === undefined ? null : path.join(dir, name);
}

export function commandExists(name: string): boolean {
  return commandPath(name) !== null;
}

/** argv that runs a command as root inside a root filesystem under construction (a chroot with /proc and /dev). */
function inRootfs(dir: string, argv: readonly string[], opts: { writable?: boolean; network?: boolean } = {}): string[] {
  return [
    'bwrap',
    opts.writable ? '--bind' : '--ro-bind',
    dir,
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    ...(opts.network ? ['--ro-bind', '/etc/resolv.conf', '/etc/resolv.conf'] : ['--unshare-net']),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--cap-add',
    'ALL',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    '--setenv',
    'DEBIAN_FRONTEND',
    'noninteractive',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'HOME',
    '/root',
    ...argv,
  ];
}

const hostPath = () => ({ PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' });

async function step(what: string, argv: string[], timeoutMs: number): Promise<string> {
  const r = await runProcess(argv, { env: hostPath(), timeoutMs });
  failedStep(what, r);
  return r.stdout;
}

/** Throws the build error for a step that did not exit with 0. */
function failedStep(what: string, r: ProcessResult): void {
  if (r.exitCode !== 0) {
    throw new EnvproofError(
      `building the environment failed at ${what}: ${describeFailure(r)}`,
      'check the network access to the Debian mirror and the free disk space, then run `envproof env build <language> --force`',
      tail(`${r.stdout}\n${r.stderr}`, 30),
    );
  }
}

/**
 * Removes a (possibly half-built) root filesystem. An interrupted debootstrap can leave /proc, /sys or a bind
 * of the host's /dev mounted inside it: those are unmounted first so the removal never reaches the host.
 */
async function removeTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const mounts = (await readFile('/proc/self/mountinfo', 'utf8'))
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) {
    await runProcess(['umount', '--lazy', m], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 30_000 });
  }
  await rm(dir, { recursive: true, force: true, maxRetries: 2 });
}

/** Size in bytes of a directory tree (du), 0 when it cannot be measured. */
export async function treeSize(dir: string): Promise<number> {
  const r = await runProcess(['du', '-sb', dir], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 120_000 });
  return Number(r.stdout.split('\t')[0]) || 0;
}

/** Languages whose environment directory exists, finished or not (for `env list`). */
export function environmentDirs(): string[] {
  if (!existsSync(rootfsRoot())) return [];
  return readdirSync(rootfsRoot())
    .filter((e) => !e.startsWith('.'))
    .sort();
}
