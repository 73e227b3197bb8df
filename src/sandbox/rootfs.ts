import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { EnvproofError } from '../core/errors.js';
import { runProcess, tail } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { withDirLock } from './lock.js';
import { hostDebianMirror } from './mirror.js';
import { baselineQueries, debianPackages, DEBIAN_SUITE, DPKG_QUERY_ARGV, parseDpkgQuery } from './recipes.js';
import type { SandboxBaseline } from './types.js';

/** Written last into a finished root filesystem; a directory without it is a broken build and is rebuilt. */
export const MARKER_FILE = '.envproof-env.json';
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
  builtAt: string;
  buildSeconds: number;
  /** Debian package name → version (`dpkg-query -W`). */
  debian: Record<string, string>;
  /** Package manager (pip, npm, pkg-config) → name → version, as that manager lists them. */
  packages: Record<string, Record<string, string>>;
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

export function rootfsDir(language: EcosystemId): string {
  return path.join(rootfsRoot(), language);
}

export type EnvironmentStatus = 'ready' | 'missing' | 'unfinished' | 'outdated';

/** What is on disk for `language`: ready, missing, unfinished (no valid marker) or built from another recipe. */
export async function inspectEnvironment(language: EcosystemId): Promise<{ status: EnvironmentStatus; marker?: EnvMarker }> {
  const dir = rootfsDir(language);
  if (!existsSync(dir)) return { status: 'missing' };
  const text = await readFile(path.join(dir, MARKER_FILE), 'utf8').catch(() => null);
  let marker: EnvMarker;
  try {
    marker = JSON.parse(text ?? '') as EnvMarker;
  } catch {
    return { status: 'unfinished' };
  }
  const current = debianPackages(language).join(' ');
  const sameRecipe = marker.format === MARKER_FORMAT && marker.language === language && marker.requested.join(' ') === current;
  return { status: sameRecipe ? 'ready' : 'outdated', marker };
}

/** The finished environment for `language`, or null when it is missing, unfinished or built from another recipe. */
export async function readEnvironment(language: EcosystemId): Promise<Environment | null> {
  const { status, marker } = await inspectEnvironment(language);
  return status === 'ready' && marker ? { language, dir: rootfsDir(language), marker } : null;
}

export function baselineOf(marker: EnvMarker): SandboxBaseline {
  return {
    debian: Object.keys(marker.debian).sort(),
    packages: Object.fromEntries(Object.entries(marker.packages).map(([m, pkgs]) => [m, Object.keys(pkgs).sort()])),
  };
}

/** The environment for `language`, built first when it is missing or broken (or always, with `force`). */
export async function ensureEnvironment(
  language: EcosystemId,
  opts: { force?: boolean; progress?: Progress } = {},
): Promise<Environment> {
  const progress = opts.progress ?? (() => {});
  if (!opts.force) {
    const ready = await readEnvironment(language);
    if (ready) return ready;
  }
  await mkdir(rootfsRoot(), { recursive: true });
  const lock = path.join(rootfsRoot(), `.${language}.lock`);
  return withDirLock(
    lock,
    (pid) => progress(`waiting for another envproof process (pid ${pid}) building the ${language} environment`),
    async () => {
      // Another process may have finished the build while we waited.
      const ready = opts.force ? null : await readEnvironment(language);
      return ready ?? buildEnvironment(language, opts.force ?? false, progress);
    },
  );
}

/** Builds into a temporary directory, writes the marker last, then renames into place. */
async function buildEnvironment(language: EcosystemId, force: boolean, progress: Progress): Promise<Environment> {
  await checkCanBuild();
  const root = rootfsRoot();
  const finalDir = rootfsDir(language);
  const buildDir = path.join(root, `.${language}.building`);
  const started = performance.now();
  await removeTree(buildDir);
  if (existsSync(finalDir) && !existsSync(path.join(finalDir, MARKER_FILE))) {
    progress(`${language}: the existing environment is unfinished (no ${MARKER_FILE}); rebuilding it`);
  }
  const mirror = await hostDebianMirror(DEBIAN_SUITE);
  const packages = debianPackages(language);

  const base = await ensureBaseArchive(mirror, force, progress);
  progress(`${language}: unpacking the ${DEBIAN_SUITE} base system`);
  await mkdir(buildDir);
  await step('unpacking the base system', ['tar', '-xpf', base, '-C', buildDir], 10 * 60_000);

  progress(`${language}: installing ${packages.join(', ')}`);
  // apt needs writable /tmp for its _apt user; lists and downloaded .debs are dropped to keep the cache small.
  // dpkg's fsync per file is skipped (unsafe-io): an interrupted build is thrown away anyway, and the tree is
  // synced once before the marker is written.
  const install = [
    'apt-get update -qq',
    `apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io ${packages.join(' ')}`,
    'apt-get clean',
    'rm -rf /var/lib/apt/lists/*',
  ].join(' && ');
  await step('apt-get install', inRootfs(buildDir, ['sh', '-c', install], { writable: true, network: true }), 30 * 60_000);
  // Mount points for the host's DNS configuration, bound read-only at run time.
  for (const f of ['etc/resolv.conf', 'etc/hosts']) await writeFile(path.join(buildDir, f), '', { flag: 'a' });

  progress(`${language}: recording the baseline (Debian packages and the package manager's own list)`);
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
    requested: packages,
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((performance.now() - started) / 100) / 10,
    debian,
    packages: managed,
  };
  await step('sync', ['sync', '--file-system', buildDir], 10 * 60_000);
  await writeFile(path.join(buildDir, MARKER_FILE), `${JSON.stringify(marker, null, 1)}\n`);

  const oldDir = path.join(root, `.${language}.old`);
  await removeTree(oldDir);
  if (existsSync(finalDir)) await rename(finalDir, oldDir);
  await rename(buildDir, finalDir);
  await removeTree(oldDir);
  progress(`${language}: environment ready in ${marker.buildSeconds} s (${Object.keys(debian).length} Debian packages)`);
  return { language, dir: finalDir, marker };
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

export function commandExists(name: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin')
    .split(':')
    .concat(['/usr/sbin', '/sbin'])
    .some((d) => d !== '' && existsSync(path.join(d, name)));
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

async function step(what: string, argv: string[], timeoutMs: number): Promise<string> {
  const r = await runProcess(argv, { env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' }, timeoutMs });
  if (r.exitCode !== 0) {
    const why = r.timedOut ? 'timed out' : r.spawnError ?? `exited with ${r.exitCode ?? r.signal}`;
    throw new EnvproofError(
      `building the environment failed at ${what}: ${why}`,
      'check the network access to the Debian mirror and the free disk space, then run `envproof env build <language> --force`',
      tail(`${r.stdout}\n${r.stderr}`, 30),
    );
  }
  return r.stdout;
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
