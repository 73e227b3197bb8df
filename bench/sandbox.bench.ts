/**
 * Sandbox figures: environment build time per language (as recorded when built; nothing is built here),
 * per-run start overhead of bwrap and podman against host, and the effect of the shared npm cache (what a first
 * install publishes) on a second install.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot } from '../src/core/cache.js';
import { ecosystemIds } from '../src/ecosystems/index.js';
import { createSandbox } from '../src/sandbox/index.js';
import { inspectEnvironment } from '../src/sandbox/rootfs.js';
import type { Sandbox } from '../src/sandbox/types.js';

const RUNS = 10;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function timed(sb: Sandbox, argv: string[], network = false): Promise<number> {
  const r = await sb.exec({ argv, cwd: sb.workDir, network, timeoutMs: 600_000 });
  if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} failed in ${sb.backend}: ${r.stderr}`);
  return r.durationMs;
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-'));
const workDir = (name: string) => {
  const d = path.join(scratch, name);
  mkdirSync(d);
  return d;
};

try {
  console.log('environment builds (recorded when built):');
  for (const language of ecosystemIds()) {
    const { status, marker } = await inspectEnvironment(language);
    const figure = marker ? `${marker.buildSeconds} s, ${Object.keys(marker.debian).length} Debian packages` : '-';
    console.log(`  ${language.padEnd(11)} ${status === 'ready' ? 'cached' : status.padEnd(6)}  ${figure}`);
  }

  const python = await inspectEnvironment('python');
  if (python.status !== 'ready') {
    console.log('python environment not built: run `envproof env build python` for the run figures');
  } else {
    const host = await createSandbox({ backend: 'host', language: 'python', hostWorkDir: workDir('host') });
    const isolating: Sandbox[] = [await createSandbox({ backend: 'bwrap', language: 'python', hostWorkDir: workDir('bwrap') })];
    const podman = await createSandbox({ backend: 'podman', language: 'python', hostWorkDir: workDir('podman') }).catch((err: Error) => {
      console.log(`podman: not measured (${err.message})`);
      return null;
    });
    if (podman) isolating.push(podman);
    console.log(`start overhead, median of ${RUNS} runs (each isolating run includes its cache layer):`);
    for (const argv of [['true'], ['python3', '-c', 'pass']]) {
      const h: number[] = [];
      const times = isolating.map(() => [] as number[]);
      for (let i = 0; i < RUNS; i++) {
        h.push(await timed(host, argv));
        for (const [j, sb] of isolating.entries()) times[j]!.push(await timed(sb, argv));
      }
      const figures = isolating.map((sb, j) => `${sb.backend} ${median(times[j]!).toFixed(1)} ms (×${(median(times[j]!) / median(h)).toFixed(1)})`);
      console.log(`  ${argv.join(' ').padEnd(18)} host ${median(h).toFixed(1)} ms  ${figures.join('  ')}`);
    }
    for (const sb of [host, ...isolating]) await sb.dispose();

    // A private cache root (the root filesystems linked in), so that the first install starts from an empty shared
    // cache; what it publishes (verified against the registry) is what the second install finds.
    const cacheEffect = async (language: 'javascript', label: string, steps: (dir: string) => string[][]) => {
      if ((await inspectEnvironment(language)).status !== 'ready') return console.log(`${label}: ${language} environment not built`);
      const realRoot = cacheRoot();
      const temp = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-cache-'));
      symlinkSync(path.join(realRoot, 'rootfs'), path.join(temp, 'rootfs'));
      process.env.ENVPROOF_CACHE_DIR = temp;
      const install = async (name: string) => {
        const sb = await createSandbox({ backend: 'bwrap', language, hostWorkDir: workDir(name) });
        const started = performance.now();
        for (const argv of steps(sb.workDir)) {
          const r = await sb.exec({ argv, cwd: sb.workDir, network: true, timeoutMs: 600_000 });
          if (r.exitCode !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
        }
        const ms = performance.now() - started; // the install and the publishing after it
        await sb.dispose();
        return ms;
      };
      try {
        const first = await install(`${language}-1`);
        const second = await install(`${language}-2`);
        const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
        console.log(`${label}: first ${s(first)} (with publishing), second ${s(second)}, second/first ${(second / first).toFixed(2)}`);
      } finally {
        process.env.ENVPROOF_CACHE_DIR = realRoot;
        rmSync(temp, { recursive: true, force: true });
      }
    };
    console.log('cache effect under bwrap (pip publishes nothing into the shared cache: docs/sandbox-caches.md):');
    await cacheEffect('javascript', '  npm install express@4.21.2 (~65 packages)', (dir) => [
      ['sh', '-c', `cd ${dir} && echo '{"name":"b","version":"1.0.0"}' > package.json`],
      ['npm', 'install', '--prefix', dir, 'express@4.21.2'],
    ]);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
