/**
 * What the install network (src/sandbox/install-network.ts) costs per install: making and ending the namespace
 * (holder, slirp4netns, filter), and the same small install (`pip download` of two wheels from PyPI, no cache)
 * in this machine's network and in an install network made for it, setup included.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../src/core/process.js';
import { missingInstallNetworkTools, RESOLV_CONF_TEXT, openInstallNetwork, withInstallNetwork } from '../src/sandbox/install-network.js';

const RUNS = 5;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-netns-'));
const resolvConf = path.join(scratch, 'resolv.conf');
writeFileSync(resolvConf, RESOLV_CONF_TEXT);
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, PIP_DISABLE_PIP_VERSION_CHECK: '1' };

async function install(prefix: readonly string[], i: number): Promise<number> {
  const dest = path.join(scratch, `d${i}-${prefix.length}`);
  const argv = [...prefix, 'python3', '-m', 'pip', 'download', '--no-cache-dir', '--no-deps', '--only-binary=:all:', '-q', '-d', dest, 'six==1.16.0', 'idna==3.7'];
  const r = await runProcess(argv, { env, timeoutMs: 300_000 });
  if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr}`);
  return r.durationMs;
}

try {
  const missing = missingInstallNetworkTools();
  if (process.getuid?.() !== 0 || missing.length > 0) {
    console.log(`install network: not measured (${missing.length ? `${missing.join(', ')} not installed` : 'needs root'})`);
  } else {
    const setup: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      (await openInstallNetwork()).close();
      setup.push(performance.now() - t);
    }
    const shared: number[] = [];
    const own: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      shared.push(await install([], i));
      const t = performance.now();
      // As in the sandboxes, the resolver inside is slirp4netns's forwarder (a private mount of resolv.conf).
      const dns = ['unshare', '--mount', '--', 'sh', '-c', `mount --bind ${resolvConf} /etc/resolv.conf && exec "$@"`, 'sh'];
      await withInstallNetwork([], (net) => install(['nsenter', `--net=${net.nsPath}`, '--', ...dns], i));
      own.push(performance.now() - t);
    }
    console.log(`install network, median of ${RUNS}:`);
    console.log(`  make and end the namespace   ${median(setup).toFixed(0)} ms`);
    console.log(`  pip download six + idna      host network ${median(shared).toFixed(0)} ms, own namespace ${median(own).toFixed(0)} ms (+${(median(own) - median(shared)).toFixed(0)} ms per install)`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
