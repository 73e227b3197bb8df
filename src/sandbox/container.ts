import { existsSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { withCacheView, type CacheLayers } from './cache-layers.js';
import { registryLoopbackPorts, SLIRP_DNS, withInstallNetwork } from './install-network.js';
import { HOST_ENV, type ContainerEngine, type EngineSetup } from './engine.js';
import { prepareWritableDirs, programRun } from './environment.js';
import { CA_BUNDLE, CACHE_INSIDE, JAVA_CA_STORE } from './paths.js';
import { SANDBOX_UID, sandboxUid } from './uid.js';
import type { ContainerImage } from './images.js';
import { cpuSeconds, type ProgramRun, type SandboxLimits } from './limits.js';
import { baselineQueries, DPKG_QUERY_ARGV, parseDpkgQuery } from './recipes.js';
import { baselineOf, PRIVATE_TOP_LEVEL, systemPackagesOf } from './rootfs.js';
import type { ExecRequest, ExecResult, Sandbox, SandboxBaseline, SystemPackage } from './types.js';

export interface ContainerRunPlan extends ProgramRun {
  engine: ContainerEngine;
  /** What this host needs: global options, the open-files limit, the seccomp profile. */
  setup: Pick<EngineSetup, 'globalOptions' | 'openFiles' | 'seccompProfile'>;
  image: string;
  /** Container name, so the container can be removed even when its client is killed. */
  name: string;
  /** Host files bound read-only at the same path (this machine's CAs, to reach registries). */
  hostFiles: readonly string[];
  /** With network: the install network's namespace (podman joins it) instead of the engine's bridge. */
  networkNamespace?: string;
}

/** The `docker run` / `podman run` command line for one program. Pure: the tests check it directly. */
export function containerRunArgv(plan: ContainerRunPlan): string[] {
  const { limits } = plan;
  const out = [plan.engine, ...plan.setup.globalOptions, 'run', '--rm', '--name', plan.name, '--hostname', 'envproof'];
  if (!plan.network) out.push('--network', 'none');
  else if (plan.networkNamespace) out.push('--network', `ns:${plan.networkNamespace}`, '--dns', SLIRP_DNS);
  else out.push('--network', 'bridge');
  out.push('--read-only', '--tmpfs', '/tmp:rw,exec,mode=1777');
  out.push('--user', `${SANDBOX_UID}:${SANDBOX_UID}`);
  out.push('--memory', String(limits.memoryBytes), '--pids-limit', String(limits.processes));
  // The same per-process limits as under bwrap, each set as soft and hard; open files explicitly, as the host requires.
  const rlimits: [string, number][] = [
    ['nofile', plan.setup.openFiles],
    ['nproc', limits.processes],
    ['data', limits.memoryBytes],
    ['fsize', limits.fileSizeBytes],
    ['cpu', cpuSeconds(plan.timeoutMs, plan.cores)],
  ];
  for (const [name, v] of rlimits) out.push('--ulimit', `${name}=${v}:${v}`);
  // No capability at all; strace traces its own children, which needs no capability, only ptrace in the profile.
  out.push('--cap-drop', 'ALL', '--security-opt', 'no-new-privileges');
  if (plan.setup.seccompProfile) out.push('--security-opt', `seccomp=${plan.setup.seccompProfile}`);
  out.push('-v', `${plan.workDir}:${plan.workDir}`);
  out.push('-v', `${plan.cacheDir}:${CACHE_INSIDE}${plan.network ? '' : ':ro'}`);
  for (const f of plan.hostFiles) out.push('-v', `${f}:${f}:ro`);
  out.push('-w', plan.cwd);
  for (const [k, v] of Object.entries(plan.env)) out.push('-e', `${k}=${v}`);
  out.push(plan.image, ...plan.argv);
  return out;
}

let runCounter = 0;

/** Docker or Podman: one `--rm` container per command, the work directory bound at the same path. */
export class ContainerSandbox implements Sandbox {
  readonly workDir: string;
  readonly rootOnHost: string;
  /** The engine, not the client this class starts, runs the container's processes. */
  readonly supportsHostWrapper = false;
  baseline?: SandboxBaseline;
  systemPackages: readonly SystemPackage[];
  private readonly hostFiles: string[];

  constructor(
    readonly backend: ContainerEngine,
    private readonly setup: EngineSetup,
    readonly language: EcosystemId,
    readonly hostWorkDir: string,
    private readonly image: ContainerImage,
    private readonly caches: CacheLayers,
    private readonly limits: SandboxLimits,
  ) {
    this.workDir = path.resolve(hostWorkDir);
    this.rootOnHost = image.rootOnHost;
    this.baseline = image.marker ? baselineOf(image.marker) : undefined;
    this.systemPackages = image.marker ? systemPackagesOf(image.marker) : [];
    this.hostFiles = [CA_BUNDLE, JAVA_CA_STORE].filter((f) => existsSync(f) && existsSync(path.join(image.rootOnHost, f)));
  }

  /**
   * For an image not made from envproof's root filesystem (ubuntu): its contents, as the bwrap backend records
   * them when it builds one, and the versions of the system packages asked for.
   */
  async loadBaseline(requestedPackages: readonly string[]): Promise<void> {
    if (this.baseline) return;
    const run = async (argv: string[]) => {
      const r = await this.exec({ argv, cwd: '/', network: false, timeoutMs: 120_000 });
      if (r.exitCode !== 0) throw new EnvproofError(`cannot list the contents of image ${this.image.tag}`, undefined, r.stderr);
      return r.stdout;
    };
    const dpkg = parseDpkgQuery(await run(DPKG_QUERY_ARGV));
    const packages: Record<string, string[]> = {};
    for (const q of baselineQueries(this.language)) packages[q.manager] = Object.keys(q.parse(await run(q.argv))).sort();
    this.baseline = { debian: Object.keys(dpkg).sort(), packages };
    this.systemPackages = requestedPackages.map((name) => ({ name, version: dpkg[name] ?? '' }));
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    if (req.hostWrapper) throw new EnvproofError(`the ${this.backend} sandbox cannot run a host command around its programs`);
    await prepareWritableDirs(this.workDir, sandboxUid());
    // Podman as root joins the install network; docker cannot join a namespace by path and keeps its bridge.
    if (req.network && this.backend === 'podman' && process.getuid?.() === 0) return withInstallNetwork(registryLoopbackPorts(req.env), (net) => this.run(req, net.nsPath));
    return this.run(req, undefined);
  }

  private run(req: ExecRequest, networkNamespace: string | undefined): Promise<ExecResult> {
    return withCacheView(this.caches, req.network, async (cacheDir) => {
      const name = `envproof-${process.pid}-${++runCounter}`;
      const argv = containerRunArgv({
        ...programRun(req, this.workDir, cacheDir, this.limits),
        engine: this.backend,
        setup: this.setup,
        image: this.image.tag,
        name,
        hostFiles: this.hostFiles,
        ...(networkNamespace ? { networkNamespace } : {}),
      });
      const result = await runProcess(argv, { env: HOST_ENV(), timeoutMs: req.timeoutMs, maxOutputBytes: req.maxOutputBytes });
      // `--rm` removes a container whose client saw it end; a client killed at the time limit does not stop it.
      if (result.timedOut || result.exitCode === null) {
        const now = this.backend === 'podman' ? ['--time', '0'] : []; // docker's --force kills at once; podman's waits for a stop
        await runProcess([this.backend, ...this.setup.globalOptions, 'rm', '--force', ...now, name], { env: HOST_ENV(), timeoutMs: 60_000 });
      }
      const shortfall = req.network && !networkNamespace ? { shortfall: "the install shared the docker bridge, from which the host's own addresses are reachable" } : {};
      return { ...result, isolation: { networkOff: !req.network, filesystemConfined: true, ownProcessTree: true, ...shortfall } };
    });
  }

  toHost(insidePath: string): string | null {
    const p = path.posix.normalize(insidePath);
    const under = (dir: string) => p === dir || p.startsWith(`${dir}/`);
    if (under(this.workDir)) return p;
    if (under(CACHE_INSIDE)) return this.caches.toHost(path.posix.relative(CACHE_INSIDE, p));
    if (this.hostFiles.includes(p)) return p;
    // The runtime's own mounts and what the image leaves out are not the image's files.
    if (PRIVATE_TOP_LEVEL.has(p.split('/')[1] ?? '') || ['/etc/resolv.conf', '/etc/hosts', '/etc/hostname'].includes(p)) return null;
    return path.join(this.rootOnHost, p);
  }

  async dispose(): Promise<void> {
    await this.caches.dispose();
  }
}
