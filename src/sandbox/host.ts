import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { packageCacheEnv } from '../ecosystems/index.js';
import { runProcess } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { commandPath } from './rootfs.js';
import { sandboxHome } from './paths.js';
import type { ExecIsolation, ExecRequest, ExecResult, Sandbox } from './types.js';

/** Only these variables reach programs; credentials and the user's settings never do. */
export function cleanEnvironment(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TMPDIR: path.join(home, '..', 'tmp'),
    ...packageCacheEnv(cacheRoot()),
    ...extra,
  };
}

/** What the host backend can do on this machine, probed once. */
export interface HostNamespaces {
  /** Prefix that gives a program its own pid namespace (empty where not permitted). */
  processTree: string[];
  /** Prefix that also gives it its own network namespace with loopback up, or null where not permitted. */
  network: string[] | null;
  /** Why there is no network namespace (when `network` is null). */
  networkProblem?: string;
}

let probed: HostNamespaces | undefined;

function works(argv: readonly string[]): { ok: boolean; detail: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { timeout: 10_000, encoding: 'utf8' });
  return { ok: r.status === 0, detail: (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0] ?? '' };
}

/**
 * Namespaces the host backend can use: its own pid namespace, so that every process a program starts, even
 * one that left its process group, dies with it; and, for runs without network, its own network namespace
 * (only loopback, brought up so local servers work). As root plain `unshare`; otherwise inside a user
 * namespace where the kernel permits one (the program then runs as root of that namespace).
 * A shell is the namespace's init and waits for the program: the program must not be init, which ignores the
 * signals it has no handler for (`abort()` would end in SIGSEGV, `kill -TERM` would do nothing).
 */
export function hostNamespaces(): HostNamespaces {
  if (probed) return probed;
  const tree = ['unshare', '--pid', '--fork', '--kill-child'];
  const init = ['sh', '-c', '"$@"; exit $?', 'sh'];
  const processTree = works([...tree, '--', ...init, 'true']).ok ? [...tree, '--', ...init] : [];
  const ip = commandPath('ip');
  if (!ip) {
    probed = { processTree, network: null, networkProblem: '`ip` (iproute2) is not installed, so loopback could not be brought up in a network namespace' };
    return probed;
  }
  const loopbackUp = ['sh', '-c', `${ip} link set lo up || exit 1; "$@"; exit $?`, 'envproof-netns'];
  const candidates = process.getuid?.() === 0 ? [['unshare', '--net', ...tree.slice(1)]] : [['unshare', '--user', '--map-root-user', '--net', ...tree.slice(1)]];
  let problem = '';
  for (const c of candidates) {
    const prefix = [...c, '--', ...loopbackUp];
    const probe = works([...prefix, 'true']);
    if (probe.ok) {
      probed = { processTree, network: prefix };
      return probed;
    }
    problem = probe.detail;
  }
  probed = { processTree, network: null, networkProblem: `new network namespaces are not permitted here (${problem})` };
  return probed;
}

/** The pid-namespace prefix alone (empty where not permitted). */
export function processTreePrefix(): string[] {
  return hostNamespaces().processTree;
}

/** Unlike bwrap's and podman's (src/sandbox/install-network.ts). */
const INSTALLS_NOT_CUT_OFF = "installs and builds were not cut off from this machine: they could reach its own services (127.0.0.1, its local network)";

/** The sentence reports carry for the host backend, saying exactly what it isolated here. */
export function hostWarning(ns: HostNamespaces = hostNamespaces()): string {
  const network = ns.network
    ? 'the traced run had its own network namespace (loopback only)'
    : `its network was not isolated either: ${ns.networkProblem}`;
  return `sandbox "host": the program ran directly on this machine with a cleaned environment; its file system was not isolated; ${network}; ${INSTALLS_NOT_CUT_OFF}.`;
}

/** The weakest backend: a temporary directory and a cleaned environment on the host. */
export class HostSandbox implements Sandbox {
  readonly backend = 'host' as const;
  readonly supportsHostWrapper = true;
  readonly rootOnHost = '/';
  readonly systemPackages = [];
  readonly workDir: string;
  readonly isolationWarning: string;

  constructor(
    readonly language: EcosystemId,
    readonly hostWorkDir: string,
    /** Said before the sentence of what was isolated (e.g. why `auto` fell back to host). */
    preface?: string,
  ) {
    this.workDir = hostWorkDir;
    this.isolationWarning = [preface, hostWarning()].filter(Boolean).join(' ');
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    const home = sandboxHome(this.hostWorkDir);
    await mkdir(home, { recursive: true });
    await mkdir(path.join(this.hostWorkDir, 'tmp'), { recursive: true });
    const ns = hostNamespaces();
    const cutNetwork = !req.network && ns.network !== null;
    const isolation: ExecIsolation = {
      networkOff: cutNetwork,
      filesystemConfined: false,
      ownProcessTree: cutNetwork || ns.processTree.length > 0,
      ...(!req.network && !cutNetwork ? { shortfall: `the network stayed on: ${ns.networkProblem}` } : {}),
    };
    const result = await runProcess([...(req.hostWrapper ?? []), ...(cutNetwork ? ns.network! : ns.processTree), ...req.argv], {
      cwd: req.cwd,
      env: cleanEnvironment(home, req.env),
      timeoutMs: req.timeoutMs,
      maxOutputBytes: req.maxOutputBytes,
    });
    return { ...result, isolation };
  }

  toHost(insidePath: string): string {
    return insidePath;
  }

  async dispose(): Promise<void> {}
}
