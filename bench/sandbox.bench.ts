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

    // A private pip cache inside the shared cache mount: the first install starts from an empty cache.
    const env = { PIP_CACHE_DIR: `/envproof/cache/pip-bench-${process.pid}` };
    const install = async (name: string) => {
      const sb = await createSandbox({ backend: 'bwrap', language: 'python', hostWorkDir: workDir(name) });
      const venv = path.join(sb.workDir, 'venv');
      await timed(sb, ['python3', '-m', 'venv', venv]);
      const r = await sb.exec({ argv: [`${venv}/bin/pip`, 'install', 'requests==2.32.3'], cwd: sb.workDir, network: true, timeoutMs: 600_000, env });
      if (r.exitCode !== 0) throw new Error(r.stderr);
      return r.durationMs;
    };
    const first = await install('pip-1');
    const second = await install('pip-2');
    console.log(`pip install requests==2.32.3 (5 packages) under bwrap: first ${(first / 1000).toFixed(2)} s, second ${(second / 1000).toFixed(2)} s, second/first ${(second / first).toFixed(2)}`);
    await bwrap.exec({ argv: ['rm', '-rf', env.PIP_CACHE_DIR], cwd: bwrap.workDir, network: true, timeoutMs: 60_000 });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
