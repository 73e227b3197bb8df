import { mkdir, statfs } from 'node:fs/promises';
import { ptraceCheck, type Check } from '../doctor/checks.js';
import { engineChecks, hostNetworkCheck } from './engine-doctor.js';
import { bwrapWorks } from './probe.js';
import { commandExists, MIN_FREE_BYTES, rootfsRoot, sudoBuildCommand } from './rootfs.js';


function installCheck(name: string, command: string, pkg: string, why: string): Check {
  const ok = commandExists(command);
  return { name, ok, detail: ok ? `${command} found (${why})` : `${command} not found (${why})`, fix: ok ? undefined : `apt-get install -y ${pkg}` };
}

/**
 * Everything the bwrap backend needs on this machine, each failed item with what fixes it; then, as optional
 * checks, what the host, podman and docker backends can do here.
 */
export async function doctorChecks(): Promise<Check[]> {
  const isRoot = process.getuid?.() === 0;
  const checks: Check[] = [
    installCheck('bubblewrap', 'bwrap', 'bubblewrap', 'runs programs in namespaces'),
    installCheck('debootstrap', 'debootstrap', 'debootstrap', 'builds the root filesystems'),
    installCheck('util-linux', 'setpriv', 'util-linux', 'setpriv and prlimit drop privileges and set limits'),
    installCheck('strace', 'strace', 'strace', 'the tracer'),
    installCheck('slirp4netns', 'slirp4netns', 'slirp4netns', "install steps' own network, without the host's services"),
    installCheck('iptables', 'iptables-restore', 'iptables', "the install network's filter of private addresses"),
  ];

  const ns = bwrapWorks();
  checks.push({
    name: 'namespaces',
    ok: ns.ok,
    detail: ns.ok ? ns.detail : `bwrap cannot create its namespaces: ${ns.detail}`,
    fix: ns.ok
      ? undefined
      : isRoot
        ? 'inside a container, run it with --privileged (or --cap-add SYS_ADMIN --security-opt seccomp=unconfined), or use --sandbox host'
        : 'sudo sysctl -w kernel.unprivileged_userns_clone=1 user.max_user_namespaces=15000 (or run envproof as root)',
  });

  checks.push(await ptraceCheck());

  checks.push({
    name: 'root',
    ok: isRoot,
    detail: isRoot ? 'running as root: environments can be built' : 'not root: debootstrap cannot build environments',
    fix: isRoot ? undefined : sudoBuildCommand('all'),
  });

  await mkdir(rootfsRoot(), { recursive: true }).catch(() => {});
  const fs = await statfs(rootfsRoot()).catch(() => null);
  const free = fs ? fs.bavail * fs.bsize : 0;
  const gib = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GiB`;
  checks.push({
    name: 'disk space',
    ok: free >= MIN_FREE_BYTES,
    detail: `${gib(free)} free under ${rootfsRoot()} (${gib(MIN_FREE_BYTES)} needed per environment build)`,
    fix: free >= MIN_FREE_BYTES ? undefined : 'free some space, or set ENVPROOF_CACHE_DIR to a directory on a larger disk',
  });
  checks.push(hostNetworkCheck(), ...(await engineChecks('podman')), ...(await engineChecks('docker')));
  return checks;
}
