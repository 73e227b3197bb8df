import { spawnSync } from 'node:child_process';
import { commandExists } from './rootfs.js';

/**
 * Whether bubblewrap can create its namespaces here, as envproof will run it (privileged as root, with a user namespace otherwise). Containers and some
 * distributions forbid unprivileged user namespaces; this is the check that says so.
 */
export function bwrapWorks(): { ok: boolean; detail: string } {
  if (!commandExists('bwrap')) return { ok: false, detail: 'bwrap is not installed' };
  const namespaces = process.getuid?.() === 0 ? ['--unshare-pid', '--unshare-net', '--unshare-ipc'] : ['--unshare-all'];
  const argv = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...namespaces, '--', 'true'];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
  if (r.status === 0) return { ok: true, detail: 'bwrap can create its mount, pid and network namespaces' };
  return { ok: false, detail: (r.stderr || r.error?.message || `exit ${r.status}`).trim() };
}
