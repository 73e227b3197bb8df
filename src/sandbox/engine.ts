/**
 * What a container engine (podman, docker) needs on this host to start envproof's containers, found by trying:
 * the global options (podman's OCI runtime and cgroup manager: crun refuses hybrid cgroup hierarchies, the
 * systemd cgroup manager needs a running systemd) and the open-files limit every container must be given
 * explicitly (the engines' default is above what this host allows), plus the seccomp profile envproof runs
 * with: the engine's own default and nothing more than what ptrace (strace) needs.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { EnvproofError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import { DEFAULT_LIMITS } from './limits.js';

export type ContainerEngine = 'docker' | 'podman';

export const HOST_ENV = () => ({ PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' });

export interface EngineSetup {
  engine: ContainerEngine;
  version: string;
  /** Options before the subcommand (`podman --runtime runc --cgroup-manager cgroupfs run ...`). */
  globalOptions: string[];
  /** The open-files limit given to every container (this host's hard limit, at most the engines' default). */
  openFiles: number;
  /** The seccomp profile file, or undefined where the engine's built-in default is used as is. */
  seccompProfile?: string;
  /** Candidates tried before the one chosen, with why each failed (for `env doctor`). */
  rejected: { options: string[]; error: string }[];
}

/** System calls strace needs beyond what a default container profile may allow (Docker's gates ptrace on the kernel version). */
export const PTRACE_SYSCALLS = ['ptrace', 'process_vm_readv'];

/**
 * The engines ask the runtime for open-files and process limits of about this size; where this host's hard
 * limits are lower, the runtime may not raise them and the container does not start.
 */
const ENGINE_DEFAULT_LIMIT = 1_048_576;

/** Tried in order; the first with which a container starts is used. */
const GLOBAL_CANDIDATES: Record<ContainerEngine, string[][]> = {
  podman: [[], ['--runtime', 'runc'], ['--cgroup-manager', 'cgroupfs'], ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs']],
  docker: [[]],
};

/** A hard limit of this process (a line of /proc/self/limits), which containers started from here cannot exceed. */
async function hostHardLimit(label: string): Promise<number> {
  const limits = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  const hard = new RegExp(`^${label}\\s+\\S+\\s+(\\S+)`, 'm').exec(limits)?.[1];
  const n = hard === undefined || hard === 'unlimited' ? ENGINE_DEFAULT_LIMIT : Number(hard);
  return Math.min(n, ENGINE_DEFAULT_LIMIT);
}

/** Where the engine keeps its default seccomp profile as a file (podman's containers-common); docker's is built in. */
async function defaultProfilePath(engine: ContainerEngine): Promise<string | undefined> {
  if (engine === 'podman') {
    const r = await runProcess(['podman', 'info', '--format', '{{.Host.Security.SECCOMPProfilePath}}'], { env: HOST_ENV(), timeoutMs: 30_000 });
    const p = r.stdout.trim();
    if (r.exitCode === 0 && p && existsSync(p)) return p;
  }
  return ['/etc/containers/seccomp.json', '/usr/share/containers/seccomp.json'].find((p) => existsSync(p));
}

/** The engine's default profile plus one rule allowing PTRACE_SYSCALLS, written once under the cache. */
export async function ptraceSeccompProfile(engine: ContainerEngine): Promise<string | undefined> {
  const base = await defaultProfilePath(engine);
  if (!base) return undefined;
  const profile = JSON.parse(await readFile(base, 'utf8')) as { syscalls?: unknown[] };
  profile.syscalls = [{ names: PTRACE_SYSCALLS, action: 'SCMP_ACT_ALLOW', args: [], comment: 'envproof: strace' }, ...(profile.syscalls ?? [])];
  const text = `${JSON.stringify(profile, null, 1)}\n`;
  const file = path.join(cacheRoot(), 'seccomp', `ptrace-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.json`);
  if (!existsSync(file)) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  return file;
}

const versions = new Map<ContainerEngine, Promise<string>>();

/**
 * The engine's version; throws a clear error unless the engine answers (`podman version`, `docker version`,
 * which needs the Docker daemon). Asked once per process.
 */
export function checkEngine(engine: ContainerEngine): Promise<string> {
  let version = versions.get(engine);
  if (!version) {
    version = askVersion(engine);
    versions.set(engine, version);
    version.catch(() => versions.delete(engine));
  }
  return version;
}

async function askVersion(engine: ContainerEngine): Promise<string> {
  const format = engine === 'podman' ? '{{.Client.Version}}' : '{{.Server.Version}}';
  const r = await runProcess([engine, 'version', '--format', format], { env: HOST_ENV(), timeoutMs: 30_000 });
  if (r.exitCode === 0 && r.stdout.trim()) return r.stdout.trim();
  const why = r.spawnError ? `${engine} is not installed` : (r.stderr.trim().split('\n')[0] ?? `exit ${r.exitCode}`);
  throw new EnvproofError(
    `sandbox "${engine}": no container engine answers (\`${engine} version\` failed: ${why})`,
    engine === 'docker'
      ? 'start the Docker daemon (e.g. `sudo systemctl start docker`) and make sure your user may use it, or use --sandbox bwrap (no engine needed) or --sandbox host'
      : 'install podman (`apt-get install podman`, or run scripts/setup.sh) or use --sandbox bwrap (no engine needed) or --sandbox host',
  );
}

const setups = new Map<string, Promise<EngineSetup>>();

/** Where the options found for an engine are kept, so that each envproof process need not try them again. */
function setupFile(engine: ContainerEngine): string {
  return path.join(cacheRoot(), 'engines', `${engine}.json`);
}

/** The kept setup, when it was found for this engine version, kernel and user. */
async function keptSetup(engine: ContainerEngine, key: string): Promise<EngineSetup | null> {
  try {
    const kept = JSON.parse(await readFile(setupFile(engine), 'utf8')) as { key: string; setup: EngineSetup };
    return kept.key === key && (!kept.setup.seccompProfile || existsSync(kept.setup.seccompProfile)) ? kept.setup : null;
  } catch {
    return null;
  }
}

/** What a trial container is started from: an image, or (podman only) a root filesystem directory. */
export type ProbeTarget = { image: string } | { rootfs: string };

/**
 * The options that let `engine` start a container from `image` here, found by starting a trivial container
 * with each candidate, once per engine version, kernel and user (kept under the cache; `fresh` tries again).
 * Throws a clear error when none works.
 */
export function engineSetup(engine: ContainerEngine, image: ProbeTarget, fresh = false): Promise<EngineSetup> {
  let setup = fresh ? undefined : setups.get(engine);
  if (!setup) {
    setup = (async () => {
      const version = await checkEngine(engine);
      const key = `${version} ${os.release()} uid ${process.getuid?.() ?? ''}`;
      const kept = fresh ? null : await keptSetup(engine, key);
      if (kept) return kept;
      const found = await probeSetup(engine, version, image);
      await mkdir(path.dirname(setupFile(engine)), { recursive: true });
      await writeFile(setupFile(engine), `${JSON.stringify({ key, setup: found }, null, 1)}\n`);
      return found;
    })();
    setups.set(engine, setup);
    setup.catch(() => setups.delete(engine));
  }
  return setup;
}

async function probeSetup(engine: ContainerEngine, version: string, target: ProbeTarget): Promise<EngineSetup> {
  const openFiles = await hostHardLimit('Max open files');
  // Every run sets its own process limit (SandboxLimits.processes), as the probe does.
  const processes = DEFAULT_LIMITS.processes;
  const rejected: EngineSetup['rejected'] = [];
  for (const options of GLOBAL_CANDIDATES[engine]) {
    const ulimits = ['--ulimit', `nofile=${openFiles}:${openFiles}`, '--ulimit', `nproc=${processes}:${processes}`];
    const from = 'image' in target ? [target.image] : ['--read-only', '--rootfs', target.rootfs];
    const argv = [engine, ...options, 'run', '--rm', '--network', 'none', ...ulimits, ...from, 'true'];
    const r = await runProcess(argv, { env: HOST_ENV(), timeoutMs: 120_000 });
    if (r.exitCode === 0) {
      return { engine, version, globalOptions: options, openFiles, seccompProfile: await ptraceSeccompProfile(engine), rejected };
    }
    rejected.push({ options, error: (r.stderr.trim().split('\n').filter(Boolean).at(-1) ?? `exit ${r.exitCode}`).slice(0, 300) });
  }
  throw new EnvproofError(
    `sandbox "${engine}": no container starts on this host (tried ${rejected.map((c) => `\`${[engine, ...c.options].join(' ')}\``).join(', ')})`,
    'run `envproof env doctor` for the details, or use --sandbox bwrap',
    rejected.map((c) => `${[engine, ...c.options].join(' ')}: ${c.error}`).join('\n'),
  );
}
