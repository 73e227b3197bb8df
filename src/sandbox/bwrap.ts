import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { withCacheView, type CacheLayers } from './cache-layers.js';
import { prepareWritableDirs, programRun } from './environment.js';
import { CA_BUNDLE, CACHE_INSIDE, JAVA_CA_STORE } from './paths.js';
import { registryLoopbackPorts, RESOLV_CONF_TEXT, withInstallNetwork } from './install-network.js';
import { sandboxUid } from './uid.js';
import { DEFAULT_LIMITS, prlimitArgs, type ProgramRun, type SandboxLimits } from './limits.js';
import { baselineOf, PRIVATE_TOP_LEVEL, systemPackagesOf, type Environment } from './rootfs.js';
import type { ExecRequest, ExecResult, Sandbox, SandboxBaseline, SystemPackage } from './types.js';

const RESOLV_CONF = '/etc/resolv.conf';
/** Host files bound read-only over the rootfs's own: DNS and the CAs this machine uses to reach registries. */
const HOST_FILES = [RESOLV_CONF, '/etc/hosts', CA_BUNDLE, JAVA_CA_STORE];

const SHARED_NETWORK = "the install shared the host's network (not root: bwrap runs unprivileged and cannot be given the install network)";

export type RootEntry = { name: string; symlink?: string };

export interface CpuFiles {
  cpuList: string;
  procStat: string;
}

/** The CPU-list file's text for CPUs 0 to n-1 ("0", "0-3"). */
export function cpuListText(n: number): string {
  return n === 1 ? '0\n' : `0-${n - 1}\n`;
}

/** /proc/stat with only the lines of CPUs 0 to n-1 besides the totals: what libuv (Node's os.cpus()) counts. */
export function procStatText(stat: string, n: number): string {
  return stat
    .split('\n')
    .filter((line) => {
      const m = /^cpu(\d+)\s/.exec(line);
      return !m || Number(m[1]) < n;
    })
    .join('\n');
}

export interface BwrapPlan extends ProgramRun {
  rootfs: string;
  rootEntries: readonly RootEntry[];
  /** Host files bound at the same path (each exists on the host and in the rootfs). */
  hostFiles: readonly string[];
  /** Host files shown as the CPU lists (/sys/devices/system/cpu/online and possible) and /proc/stat: fewer CPUs. */
  cpuFiles?: CpuFiles;
  /** Switch to this uid inside, dropping every capability (only possible, and only needed, when envproof runs as root). */
  dropToUid?: number;
  /** Host file shown as /etc/resolv.conf instead of the host's own (the install network's DNS forwarder). */
  resolvConf?: string;
}

/** The complete command line for one program run under bubblewrap. Pure: the tests check it directly. */
export function bwrapArgv(plan: BwrapPlan): string[] {
  const out: string[] = [];
  // The limits apply to everything bwrap starts; the kernel enforces the process limit once the uid is not root.
  out.push(...prlimitArgs(plan.limits, plan.timeoutMs, plan.cores), 'bwrap');
  for (const e of plan.rootEntries) {
    if (e.symlink !== undefined) out.push('--symlink', e.symlink, `/${e.name}`);
    else out.push('--ro-bind', path.join(plan.rootfs, e.name), `/${e.name}`);
  }
  // A private /dev/shm: POSIX semaphores and shared memory (Python's multiprocessing, libfaketime) need one.
  out.push('--dev', '/dev', '--proc', '/proc', '--perms', '1777', '--tmpfs', '/tmp', '--perms', '1777', '--tmpfs', '/dev/shm');
  if (plan.cpuFiles) {
    // glibc's sysconf(_SC_NPROCESSORS_ONLN/CONF) reads the CPU lists; libuv counts /proc/stat's lines (a snapshot here).
    for (const list of ['online', 'possible']) out.push('--ro-bind', plan.cpuFiles.cpuList, `/sys/devices/system/cpu/${list}`);
    out.push('--ro-bind', plan.cpuFiles.procStat, '/proc/stat');
  }
  for (const f of plan.hostFiles) out.push('--ro-bind', plan.resolvConf && f === RESOLV_CONF ? plan.resolvConf : f, f);
  // Installs may fill the caches; the traced run (no network) only reads them.
  out.push(...traversableParents(CACHE_INSIDE), plan.network ? '--bind' : '--ro-bind', plan.cacheDir, CACHE_INSIDE);
  out.push(...traversableParents(plan.workDir), '--bind', plan.workDir, plan.workDir);
  if (plan.dropToUid === undefined) {
    out.push('--unshare-all');
    if (plan.network) out.push('--share-net');
  } else {
    // Privileged bwrap: every namespace but the user one, so that the uid switched to inside is the real one.
    // With network it stays in the namespace it was started in: the install network's (installNetworkPrefix).
    out.push('--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try');
    if (!plan.network) out.push('--unshare-net');
    out.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID');
  }
  out.push('--hostname', 'envproof', '--die-with-parent', '--new-session', '--chdir', plan.cwd, '--clearenv');
  for (const [k, v] of Object.entries(plan.env)) out.push('--setenv', k, v);
  out.push('--');
  if (plan.dropToUid !== undefined) {
    const id = String(plan.dropToUid);
    out.push('setpriv', `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--');
  }
  out.push(...plan.argv);
  return out;
}

/** bwrap creates missing parents of a mount point for root only; these make them traversable for the sandbox's user. */
function traversableParents(dir: string): string[] {
  const parts = dir.split('/').filter(Boolean);
  return parts.slice(0, -1).flatMap((_, i) => ['--perms', '0755', '--dir', `/${parts.slice(0, i + 1).join('/')}`]);
}

/** What to bind from a root filesystem's top level: directories read-only, symlinks (usr-merge) as symlinks. */
export function rootEntriesOf(rootfs: string): RootEntry[] {
  return readdirSync(rootfs)
    .filter((name) => !PRIVATE_TOP_LEVEL.has(name))
    .sort()
    .map((name) => {
      const full = path.join(rootfs, name);
      return lstatSync(full).isSymbolicLink() ? { name, symlink: readlinkSync(full) } : { name };
    });
}

/** Bubblewrap over a cached Debian root filesystem: read-only system, the work directory as the only writable place. */
export class BwrapSandbox implements Sandbox {
  readonly backend = 'bwrap' as const;
  readonly supportsHostWrapper = true;
  readonly workDir: string;
  readonly rootOnHost: string;
  readonly baseline: SandboxBaseline;
  readonly systemPackages: readonly SystemPackage[];
  private readonly rootEntries: RootEntry[];
  private readonly hostFiles: string[];
  /**
   * As root, bwrap runs privileged (it must read root filesystems under root's home) and the program is
   * switched to SANDBOX_UID inside, after the mounts are made.
   */
  private readonly dropToUid = sandboxUid();
  /** Where the files bound over the rootfs's (CPU lists, resolv.conf) are written, made on first use. */
  private filesDirPath?: string;

  constructor(
    readonly language: EcosystemId,
    readonly hostWorkDir: string,
    env: Environment,
    private readonly caches: CacheLayers,
    private readonly limits: SandboxLimits = DEFAULT_LIMITS,
  ) {
    this.workDir = path.resolve(hostWorkDir);
    this.rootOnHost = env.dir;
    this.baseline = baselineOf(env.marker);
    this.systemPackages = systemPackagesOf(env.marker);
    this.rootEntries = rootEntriesOf(env.dir);
    const top = this.workDir.split('/')[1] ?? '';
    if (this.rootEntries.some((e) => e.name === top) || this.workDir === '/') {
      throw new EnvproofError(
        `the work directory ${this.workDir} lies under /${top}, which the bwrap sandbox takes from its root filesystem`,
        'use a work directory under /tmp, /work or your home directory',
      );
    }
    this.hostFiles = HOST_FILES.filter((f) => existsSync(f) && existsSync(path.join(env.dir, f)));
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    await prepareWritableDirs(this.workDir, this.dropToUid);
    return withCacheView(this.caches, req.network, (cacheDir) => {
      // Unprivileged bwrap cannot be started in a namespace made here: its installs share the host's network.
      if (!req.network || this.dropToUid === undefined) return this.run(req, cacheDir, []);
      return withInstallNetwork(registryLoopbackPorts(req.env), (net) => this.run(req, cacheDir, ['nsenter', `--net=${net.nsPath}`, '--']));
    });
  }

  private async run(req: ExecRequest, cacheDir: string, netPrefix: readonly string[]): Promise<ExecResult> {
    const argv = bwrapArgv({
      ...programRun(req, this.workDir, cacheDir, this.limits),
      rootfs: this.rootOnHost,
      rootEntries: this.rootEntries,
      hostFiles: this.hostFiles,
      ...(req.visibleCpus ? { cpuFiles: await this.cpuFiles(req.visibleCpus) } : {}),
      dropToUid: this.dropToUid,
      ...(netPrefix.length > 0 ? { resolvConf: await this.resolvConf() } : {}),
    });
    const result = await runProcess([...(req.hostWrapper ?? []), ...netPrefix, ...argv], {
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
      timeoutMs: req.timeoutMs,
      maxOutputBytes: req.maxOutputBytes,
    });
    const shortfall = req.network && netPrefix.length === 0 ? { shortfall: SHARED_NETWORK } : {};
    return { ...result, isolation: { networkOff: !req.network, filesystemConfined: true, ownProcessTree: true, ...shortfall } };
  }

  private async resolvConf(): Promise<string> {
    const file = path.join(await this.filesDir(), 'resolv.conf');
    await writeFile(file, RESOLV_CONF_TEXT);
    return file;
  }

  private async filesDir(): Promise<string> {
    this.filesDirPath ??= await mkdtemp(path.join(os.tmpdir(), 'envproof-bwrap-'));
    return this.filesDirPath;
  }

  private async cpuFiles(n: number): Promise<CpuFiles> {
    const dir = await this.filesDir();
    const files = { cpuList: path.join(dir, `cpu-list-${n}`), procStat: path.join(dir, `proc-stat-${n}`) };
    await writeFile(files.cpuList, cpuListText(n));
    await writeFile(files.procStat, procStatText(await readFile('/proc/stat', 'utf8'), n));
    return files;
  }

  toHost(insidePath: string): string | null {
    const p = path.posix.normalize(insidePath);
    const under = (dir: string) => p === dir || p.startsWith(`${dir}/`);
    if (under(this.workDir)) return p;
    if (under(CACHE_INSIDE)) return this.caches.toHost(path.posix.relative(CACHE_INSIDE, p));
    if (this.hostFiles.includes(p)) return p;
    if (['/tmp', '/proc', '/dev'].some(under)) return null;
    const top = p.split('/')[1] ?? '';
    if (!this.rootEntries.some((e) => e.name === top)) return null;
    return path.join(this.rootOnHost, p);
  }

  async dispose(): Promise<void> {
    if (this.filesDirPath) await rm(this.filesDirPath, { recursive: true, force: true });
    await this.caches.dispose();
  }
}
