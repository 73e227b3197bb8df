import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { runProcess, tail } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { CA_BUNDLE, CACHE_INSIDE, isolatedEnvironment, prepareWritableDirs, SANDBOX_UID, sandboxCacheDir } from './environment.js';
import type { ProgramRun, SandboxLimits } from './limits.js';
import { baselineQueries, debianPackages, DEBIAN_SUITE, DPKG_QUERY_ARGV, parseDpkgQuery } from './recipes.js';
import type { ExecRequest, ExecResult, Sandbox, SandboxBaseline, SystemPackage } from './types.js';

export type ContainerEngine = 'docker' | 'podman';

/** Base images: Debian (the same system as the bwrap root filesystems) or Ubuntu 22.04, as in the paper. */
export const IMAGE_BASES = ['debian', 'ubuntu'] as const;
export type ImageBase = (typeof IMAGE_BASES)[number];
const BASE_IMAGES: Record<ImageBase, string> = {
  debian: `debian:${DEBIAN_SUITE}-slim`,
  ubuntu: 'ubuntu:22.04',
};


/** The image recipe for `language`: the base system plus the same package list as the root filesystems. */
export function dockerfile(language: EcosystemId, base: ImageBase = 'debian'): string {
  return [
    `FROM ${BASE_IMAGES[base]}`,
    `LABEL org.envproof.language="${language}" org.envproof.base="${base}"`,
    'ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8',
    'RUN apt-get update \\',
    ` && apt-get install -y --no-install-recommends ${debianPackages(language).join(' ')} \\`,
    ' && rm -rf /var/lib/apt/lists/*',
    '',
  ].join('\n');
}

/** Image name whose tag changes with the recipe, so a changed recipe builds a new image. */
export function imageTag(language: EcosystemId, base: ImageBase = 'debian'): string {
  const digest = createHash('sha256').update(dockerfile(language, base)).digest('hex').slice(0, 12);
  return `envproof-${language}-${base}:${digest}`;
}

export interface ContainerRunPlan extends ProgramRun {
  engine: ContainerEngine;
  image: string;
  /** Container name, so the container can be removed even when its client is killed. */
  name: string;
  /** Bind the host's CA bundle (registries reached through this machine's CAs). */
  caBundle: boolean;
}

/** The `docker run` / `podman run` command line for one program. Pure: the tests check it directly. */
export function containerRunArgv(plan: ContainerRunPlan): string[] {
  const out = [plan.engine, 'run', '--rm', '--name', plan.name, '--hostname', 'envproof'];
  out.push('--network', plan.network ? 'bridge' : 'none');
  out.push('--read-only', '--tmpfs', '/tmp:rw,exec,mode=1777');
  out.push('--user', `${SANDBOX_UID}:${SANDBOX_UID}`);
  out.push('--memory', String(plan.limits.memoryBytes), '--pids-limit', String(plan.limits.processes));
  out.push('--ulimit', `fsize=${plan.limits.fileSizeBytes}`);
  // strace inside needs ptrace, which Docker's default seccomp profile refuses on older kernels.
  out.push('--cap-drop', 'ALL', '--cap-add', 'SYS_PTRACE', '--security-opt', 'seccomp=unconfined');
  out.push('--security-opt', 'no-new-privileges');
  out.push('-v', `${plan.workDir}:${plan.workDir}`);
  out.push('-v', `${plan.cacheDir}:${CACHE_INSIDE}${plan.network ? '' : ':ro'}`);
  if (plan.caBundle) out.push('-v', `${CA_BUNDLE}:${CA_BUNDLE}:ro`);
  out.push('-w', plan.cwd);
  for (const [k, v] of Object.entries(plan.env)) out.push('-e', `${k}=${v}`);
  out.push(plan.image, ...plan.argv);
  return out;
}

const HOST_PATH = () => ({ PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' });

/** Throws a clear error unless `engine` answers (`docker info` / `podman info`). */
export async function checkEngine(engine: ContainerEngine): Promise<void> {
  const r = await runProcess([engine, 'info'], { env: HOST_PATH(), timeoutMs: 20_000 });
  if (r.exitCode === 0) return;
  const why = r.spawnError ? `${engine} is not installed` : (r.stderr.trim().split('\n')[0] ?? `exit ${r.exitCode}`);
  throw new EnvproofError(
    `sandbox "${engine}": no container engine answers (\`${engine} info\` failed: ${why})`,
    engine === 'docker'
      ? 'start the Docker daemon (e.g. `sudo systemctl start docker`) and make sure your user may use it, or use --sandbox bwrap (no engine needed) or --sandbox host'
      : 'install podman (`apt-get install podman`) or use --sandbox bwrap (no engine needed) or --sandbox host',
  );
}

/** Builds the language's image unless an image with the recipe's tag exists. */
export async function ensureImage(
  engine: ContainerEngine,
  language: EcosystemId,
  base: ImageBase,
  progress: (m: string) => void,
): Promise<string> {
  const tag = imageTag(language, base);
  const present = await runProcess([engine, 'image', 'inspect', tag], { env: HOST_PATH(), timeoutMs: 30_000 });
  if (present.exitCode === 0) return tag;
  progress(`${language}: building image ${tag} with ${engine}`);
  const r = await runProcess([engine, 'build', '-t', tag, '-'], {
    env: HOST_PATH(),
    timeoutMs: 60 * 60_000,
    stdin: dockerfile(language, base),
  });
  if (r.exitCode !== 0) {
    throw new EnvproofError(`${engine} build of ${tag} failed`, 'check the engine\'s network access', tail(`${r.stdout}\n${r.stderr}`, 30));
  }
  return tag;
}

let runCounter = 0;

/** Docker or Podman: one `--rm` container per command, the work directory bound at the same path. */
export class ContainerSandbox implements Sandbox {
  readonly workDir: string;
  /** The container's file system is not reachable from the host; only the work directory maps back. */
  readonly rootOnHost = '';
  baseline?: SandboxBaseline;
  readonly systemPackages: SystemPackage[] = [];
  private readonly cacheDir = sandboxCacheDir();

  constructor(
    readonly backend: ContainerEngine,
    readonly language: EcosystemId,
    readonly hostWorkDir: string,
    private readonly image: string,
    private readonly limits: SandboxLimits,
  ) {
    this.workDir = path.resolve(hostWorkDir);
  }

  /** Records the image's own contents, as the bwrap backend does when it builds a root filesystem. */
  async loadBaseline(): Promise<void> {
    const run = async (argv: string[]) => {
      const r = await this.exec({ argv, cwd: '/', network: false, timeoutMs: 120_000 });
      if (r.exitCode !== 0) throw new EnvproofError(`cannot list the contents of image ${this.image}`, undefined, r.stderr);
      return r.stdout;
    };
    const debian = Object.keys(parseDpkgQuery(await run(DPKG_QUERY_ARGV))).sort();
    const packages: Record<string, string[]> = {};
    for (const q of baselineQueries(this.language)) packages[q.manager] = Object.keys(q.parse(await run(q.argv))).sort();
    this.baseline = { debian, packages };
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    await prepareWritableDirs(this.workDir, process.getuid?.() === 0 ? SANDBOX_UID : undefined);
    const name = `envproof-${process.pid}-${++runCounter}`;
    const argv = containerRunArgv({
      engine: this.backend,
      image: this.image,
      name,
      workDir: this.workDir,
      cacheDir: this.cacheDir,
      cwd: req.cwd,
      network: req.network,
      env: isolatedEnvironment(this.workDir, req.env),
      argv: req.argv,
      limits: this.limits,
      caBundle: existsSync(CA_BUNDLE),
    });
    const result = await runProcess(argv, { env: HOST_PATH(), timeoutMs: req.timeoutMs, maxOutputBytes: req.maxOutputBytes });
    // Killing the client does not stop the container: remove it, whatever happened.
    await runProcess([this.backend, 'rm', '--force', name], { env: HOST_PATH(), timeoutMs: 30_000 });
    return { ...result, isolation: { networkOff: !req.network, filesystemConfined: true, ownProcessTree: true } };
  }

  toHost(insidePath: string): string | null {
    const p = path.posix.normalize(insidePath);
    return p === this.workDir || p.startsWith(`${this.workDir}/`) ? p : null;
  }

  async dispose(): Promise<void> {}
}
