/**
 * Sandbox figures: environment build time per language (as recorded when built; nothing is built here),
 * per-run start overhead of bwrap against host, and the effect of the shared pip cache on a second install.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ECOSYSTEM_IDS } from '../src/core/types.js';
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
  for (const language of ECOSYSTEM_IDS) {
    const { status, marker } = await inspectEnvironment(language);
    const figure = marker ? `${marker.buildSeconds} s, ${Object.keys(marker.debian).length} Debian packages` : '-';
    console.log(`  ${language.padEnd(11)} ${status === 'ready' ? 'cached' : status.padEnd(6)}  ${figure}`);
  }

  const python = await inspectEnvironment('python');
  if (python.status !== 'ready') {
    console.log('python environment not built: run `envproof env build python` for the run figures');
  } else {
    const host = await createSandbox({ backend: 'host', language: 'python', hostWorkDir: workDir('host') });
    const bwrap = await createSandbox({ backend: 'bwrap', language: 'python', hostWorkDir: workDir('bwrap') });
    console.log(`start overhead, median of ${RUNS} runs:`);
    for (const argv of [['true'], ['python3', '-c', 'pass']]) {
      const h: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        h.push(await timed(host, argv));
        b.push(await timed(bwrap, argv));
      }
      const label = argv.join(' ').padEnd(18);
      console.log(`  ${label} host ${median(h).toFixed(1)} ms  bwrap ${median(b).toFixed(1)} ms  ratio ${(median(b) / median(h)).toFixed(2)}`);
    }

    // Private caches inside the shared cache mount, so that each first install starts from an empty cache.
    const cacheEffect = async (language: 'python' | 'javascript', label: string, cacheVar: string, steps: (dir: string) => string[][]) => {
      if ((await inspectEnvironment(language)).status !== 'ready') return console.log(`${label}: ${language} environment not built`);
      const cache = `/envproof/cache/${language === 'python' ? 'pip' : 'npm'}/bench-${process.pid}`;
      const install = async (name: string) => {
        const sb = await createSandbox({ backend: 'bwrap', language, hostWorkDir: workDir(name) });
        let last = 0;
        for (const argv of steps(sb.workDir)) {
          const r = await sb.exec({ argv, cwd: sb.workDir, network: true, timeoutMs: 600_000, env: { [cacheVar]: cache } });
          if (r.exitCode !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
          last = r.durationMs;
        }
        return { sb, ms: last };
      };
      const first = await install(`${language}-1`);
      const second = await install(`${language}-2`);
      const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
      console.log(`${label}: first ${s(first.ms)}, second ${s(second.ms)}, second/first ${(second.ms / first.ms).toFixed(2)}`);
      await second.sb.exec({ argv: ['rm', '-rf', cache], cwd: second.sb.workDir, network: true, timeoutMs: 60_000 });
    };
    console.log('cache effect under bwrap (the install step only):');
    await cacheEffect('python', '  pip install requests==2.32.3 (5 packages)', 'PIP_CACHE_DIR', (dir) => [
      ['python3', '-m', 'venv', `${dir}/venv`],
      [`${dir}/venv/bin/pip`, 'install', 'requests==2.32.3'],
    ]);
    await cacheEffect('javascript', '  npm install express@4.21.2 (~65 packages)', 'npm_config_cache', (dir) => [
      ['sh', '-c', `cd ${dir} && echo '{"name":"b","version":"1.0.0"}' > package.json`],
      ['npm', 'install', '--prefix', dir, 'express@4.21.2'],
    ]);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
