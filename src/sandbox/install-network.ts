/**
 * The network of install and build steps under bwrap and podman: a network namespace of their own, connected to
 * the outside by user-mode networking (slirp4netns), with a filter inside that refuses every private,
 * link-local and loopback destination and the host's own networks. Registries (public addresses) are reached;
 * the host's services (its 127.0.0.1, a Redis queue, a PostgreSQL store, anything on its LAN) are not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readlink } from 'node:fs/promises';
import os from 'node:os';
import { EnvproofError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import { commandExists } from './rootfs.js';

/**
 * slirp4netns's fixed addresses inside the namespace, on its 10.0.2.0/24: the host's loopback as it reaches it
 * (10.0.2.2, open only when some registry lives there), its DNS forwarder (10.0.2.3) and the namespace's own
 * address (10.0.2.100).
 */
const SLIRP_HOST = '10.0.2.2';
export const SLIRP_DNS = '10.0.2.3';
const SLIRP_GUEST = '10.0.2.100';
export const RESOLV_CONF_TEXT = `nameserver ${SLIRP_DNS}\n`;

/** Destinations no install needs: special-purpose IPv4 ranges (RFC 6890) a host's own services live on. */
const REFUSED_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/** The IPv4 networks this machine's own interfaces are on (its own addresses and its LAN). */
export function hostNetworks(interfaces = os.networkInterfaces()): string[] {
  const out = new Set<string>();
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && a.cidr) out.add(networkOf(a.cidr));
    }
  }
  return [...out].sort();
}

function networkOf(cidr: string): string {
  const [addr, bits] = cidr.split('/');
  const n = Number(bits);
  const value = addr!.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  const masked = n === 0 ? 0 : Math.floor(value / 2 ** (32 - n)) * 2 ** (32 - n);
  const octets = [24, 16, 8, 0].map((s) => Math.floor(masked / 2 ** s) % 256);
  return `${octets.join('.')}/${n}`;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The ports of this machine's loopback an install may reach: those of the registries envproof itself points
 * installs at (a mirror configured with ENVPROOF_REGISTRY_*, repro's dated index in PIP_INDEX_URL), read from
 * envproof's own environment and the step's. Everything else on the host stays out of reach.
 */
export function registryLoopbackPorts(stepEnv: Readonly<Record<string, string>> = {}, ownEnv: NodeJS.ProcessEnv = process.env): number[] {
  const configured = Object.entries(ownEnv).filter(([k]) => k.startsWith('ENVPROOF_REGISTRY_')).map(([, v]) => v ?? '');
  const ports = new Set<number>();
  for (const value of [...configured, ...Object.values(stepEnv)]) {
    for (const word of value.split(/[\s,|]+/)) {
      if (!/^https?:\/\//.test(word)) continue;
      const url = URL.canParse(word) ? new URL(word) : undefined;
      if (url && LOOPBACK_HOSTS.has(url.hostname)) ports.add(Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/**
 * Connections to 127.0.0.1:<port> of a registry's port leave the namespace for the host's loopback (slirp's
 * 10.0.2.2). Their source is rewritten too, since a 127.0.0.1 source may not leave a loopback device.
 */
function natRules(ports: readonly number[]): string[] {
  if (ports.length === 0) return [];
  return [
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':INPUT ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
    ...ports.map((p) => `-A OUTPUT -d 127.0.0.1/32 -p tcp --dport ${p} -j DNAT --to-destination ${SLIRP_HOST}:${p}`),
    ...ports.map((p) => `-A POSTROUTING -d ${SLIRP_HOST}/32 -p tcp --dport ${p} -j SNAT --to-source ${SLIRP_GUEST}`),
    'COMMIT',
  ];
}

/**
 * The namespace's rules (iptables-restore input): loopback, slirp's DNS forwarder and the registries' loopback
 * ports (`registryPorts`) pass, every refused range and host network is rejected at once (a refused connection,
 * not a hang). Pure: the tests check it directly.
 */
export function filterRules(hostNets: readonly string[], registryPorts: readonly number[] = []): string {
  const refused = [...new Set([...REFUSED_RANGES, ...hostNets])];
  return [
    ...natRules(registryPorts),
    '*filter',
    ':INPUT ACCEPT [0:0]',
    ':FORWARD DROP [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    '-A OUTPUT -o lo -j ACCEPT',
    `-A OUTPUT -d ${SLIRP_DNS}/32 -p udp --dport 53 -j ACCEPT`,
    `-A OUTPUT -d ${SLIRP_DNS}/32 -p tcp --dport 53 -j ACCEPT`,
    ...registryPorts.map((p) => `-A OUTPUT -d ${SLIRP_HOST}/32 -p tcp --dport ${p} -j ACCEPT`),
    ...refused.map((r) => `-A OUTPUT -d ${r} -j REJECT`),
    'COMMIT',
    '',
  ].join('\n');
}

/** What install networking needs on this machine; empty when everything is there. */
export function missingInstallNetworkTools(): string[] {
  return ['slirp4netns', 'iptables-restore', 'unshare', 'nsenter'].filter((c) => !commandExists(c));
}

/** One network namespace for one install or build command; `close` ends its helpers. */
export interface InstallNetwork {
  /** The namespace as a path (/proc/<pid>/ns/net) for `nsenter --net=` or podman's `--network ns:`. */
  readonly nsPath: string;
  close(): void;
}

function firstLine(child: ChildProcess, stream: NodeJS.ReadableStream | null, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    stream?.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('\n') || what === 'slirp4netns') resolve(text);
    });
    child.once('error', (err) => reject(new EnvproofError(`cannot start ${what}: ${err.message}`)));
    child.once('exit', (code) => reject(new EnvproofError(`${what} ended (exit ${code}) before the install network was ready: ${stderr.trim().split('\n').pop() ?? ''}`)));
  });
}

/**
 * Makes the namespace: a holder process in a new network namespace (it lives until `close` or until envproof
 * ends, since it waits for its stdin to close), slirp4netns attached to it, the filter loaded. As root only.
 * `registryPorts`: the host loopback ports of registries the step may reach (`registryLoopbackPorts`); with none,
 * slirp4netns does not forward to the host's loopback at all.
 */
export async function openInstallNetwork(registryPorts: readonly number[] = []): Promise<InstallNetwork> {
  const missing = missingInstallNetworkTools();
  if (missing.length > 0) {
    throw new EnvproofError(
      `install steps cannot get their own network: ${missing.join(', ')} not installed`,
      'apt-get install -y slirp4netns iptables (or run scripts/setup.sh), or use --sandbox host',
    );
  }
  const env = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' };
  const holder = spawn('unshare', ['--net', '--', 'sh', '-c', 'echo ready; read _ignored'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const helpers: ChildProcess[] = [holder];
  const close = () => {
    for (const h of helpers) {
      h.stdin?.destroy();
      h.kill('SIGKILL');
    }
  };
  try {
    await firstLine(holder, holder.stdout, 'unshare');
    const nsPath = `/proc/${holder.pid}/ns/net`;
    // Attaching slirp4netns to the host's own namespace would give the host a tap device and a default route.
    if ((await readlink(nsPath)) === (await readlink('/proc/self/ns/net'))) throw new EnvproofError('the install network namespace was not created');
    // fd 3: slirp4netns writes "1" once the namespace is configured; fd 4: it exits when envproof closes it (or dies).
    const slirp = spawn(
      'slirp4netns',
      ['--configure', '--mtu=65520', ...(registryPorts.length ? [] : ['--disable-host-loopback']), '--enable-sandbox', '--ready-fd=3', '--exit-fd=4', String(holder.pid), 'tap0'],
      { env, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    helpers.push(slirp);
    await firstLine(slirp, slirp.stdio[3] as NodeJS.ReadableStream, 'slirp4netns');
    if (registryPorts.length > 0) {
      // Per namespace: lets the rewritten 127.0.0.1 connections be routed out of the namespace's loopback.
      const l = await runProcess(['nsenter', `--net=${nsPath}`, '--', 'sh', '-c', 'echo 1 > /proc/sys/net/ipv4/conf/all/route_localnet'], { env, timeoutMs: 30_000 });
      if (l.exitCode !== 0) throw new EnvproofError(`cannot route the registries' loopback ports in the install network: ${l.stderr.trim() || `exit ${l.exitCode}`}`);
    }
    const r = await runProcess(['nsenter', `--net=${nsPath}`, '--', 'iptables-restore'], { env, timeoutMs: 30_000, stdin: filterRules(hostNetworks(), registryPorts) });
    if (r.exitCode !== 0) throw new EnvproofError(`cannot load the install network's filter: ${r.stderr.trim() || r.spawnError || `exit ${r.exitCode}`}`);
    for (const h of helpers) h.removeAllListeners('exit');
    return { nsPath, close };
  } catch (err) {
    close();
    throw err;
  }
}

/** Runs `fn` with a fresh install network, ended afterwards whatever happens. */
export async function withInstallNetwork<T>(registryPorts: readonly number[], fn: (net: InstallNetwork) => Promise<T>): Promise<T> {
  const net = await openInstallNetwork(registryPorts);
  try {
    return await fn(net);
  } finally {
    net.close();
  }
}
