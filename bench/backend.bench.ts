/**
 * The backend suite's costs: one evaluation end to end of each reference server (Flask, FastAPI, Django,
 * Express, Koa, Fastify) in the bwrap sandbox, split into install, start (to the first 200 of the health check),
 * suites and trace; the suites' own time against a running server; the static verifiers on a 2,000-file tree.
 * Needs ../shared/data/realworld (the contract and the collection). `BENCH_SERVERS=flask,django` evaluates only
 * the servers whose names contain one of those words.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../src/core/process.js';
import { OpenApiContract } from '../src/verify/contract/openapi.js';
import { loadCollection, runPostman } from '../src/verify/contract/postman.js';
import { runContractSuite } from '../src/verify/contract/run-suite.js';
import { waitForHealth } from '../src/verify/contract/client.js';
import { evaluateBackend } from '../src/verify/evaluate.js';
import { verifyProject } from '../src/verify/verify.js';
import { COLLECTION, referenceServer, SPEC } from '../test/verify/helpers.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const REFERENCE_SERVERS: { name: string; language: 'python' | 'javascript'; database: 'sqlite' | 'postgresql' }[] = [
  { name: 'flask-sqlalchemy', language: 'python', database: 'sqlite' },
  { name: 'fastapi-sqlalchemy', language: 'python', database: 'sqlite' },
  { name: 'django-sqlalchemy', language: 'python', database: 'sqlite' },
  { name: 'express-sequelize', language: 'javascript', database: 'postgresql' },
  { name: 'koa-sequelize', language: 'javascript', database: 'postgresql' },
  // On SQLite: the install compiles sqlite3 (minutes), which measures the compiler as much as envproof.
  { name: 'fastify-sequelize', language: 'javascript', database: 'sqlite' },
];

async function endToEnd({ name, language, database }: (typeof REFERENCE_SERVERS)[number]): Promise<void> {
  const started = performance.now();
  const e = await evaluateBackend({
    dir: referenceServer(name, database),
    language,
    constraints: { architecture: 'clean', database, orm: language === 'python' ? 'sqlalchemy' : 'sequelize' },
    sandbox: 'bwrap',
    port: language === 'python' ? 8080 : 3000,
    spec: SPEC,
    collection: COLLECTION,
    startupTimeoutSec: 60,
    timeoutSec: 1800,
    progress: () => {},
  });
  const p = e.environment?.phasesMs;
  console.log(`${name} on ${database}: ${seconds(performance.now() - started)} end to end; passed ${e.passed}, A% ${e.aPct.strict.toFixed(1)}, Postman ${e.postman?.passed}/${e.postman?.total}`);
  if (!p || !e.startup.started) return;
  // The traced run is the server's start (launch, the health check's polling, the client's own start, the stop)
  // and the two suites, whose times the suites measure themselves.
  const suites = (e.contract?.durationMs ?? 0) + (e.postman?.durationMs ?? 0);
  console.log(
    `  sandbox ${seconds(p.prepare)}, install ${seconds(p.install)}, start ${seconds(p.run - suites)}, suites ${seconds(suites)} (envproof's ${seconds(e.contract?.durationMs ?? 0)}, Postman ${seconds(e.postman?.durationMs ?? 0)}), trace ${seconds(p.tracing + p.analysis)} (the tracer's own work ${seconds(p.tracing)}, analysis ${seconds(p.analysis)})`,
  );
}

/** The Flask reference server started directly on the host (a venv from the pip cache), for the suites' own time. */
async function suitesOwnTime(): Promise<void> {
  const dir = referenceServer('flask-sqlalchemy', 'sqlite');
  const venv = path.join(dir, '.venv');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() };
  await runProcess(['python3', '-m', 'venv', venv], { env, timeoutMs: 120_000 });
  const pip = await runProcess([path.join(venv, 'bin/pip'), 'install', '-q', '-r', 'requirements.txt'], { cwd: dir, env, timeoutMs: 600_000 });
  if (pip.exitCode !== 0) throw new Error(`pip install failed: ${pip.stderr}`);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(path.join(venv, 'bin/python'), ['app.py'], { cwd: dir, env: { ...env, PORT: String(port) }, stdio: 'ignore' });
  try {
    const base = `http://127.0.0.1:${port}/api`;
    const up = await waitForHealth(`${base}/health-check`, 30_000);
    if (!up.started) throw new Error(up.reason);
    const contract = OpenApiContract.load(SPEC);
    const collection = loadCollection(COLLECTION);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await runContractSuite(base, contract);
      times.push(performance.now() - t);
      if (r.passed !== r.total) throw new Error(`the reference server failed ${r.total - r.passed} assertions`);
    }
    times.sort((a, b) => a - b);
    console.log(`envproof's suite (40 requests, 107 assertions): median ${times[2]!.toFixed(0)} ms over 5 runs`);
    const t = performance.now();
    const pm = await runPostman(collection, base, 120_000);
    console.log(`Postman collection with Newman (${pm.requests.length} requests, ${pm.total} assertions): ${(performance.now() - t).toFixed(0)} ms`);
  } finally {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 2,000 source files: the reference servers' sources copied into many layered packages. */
async function verifierTime(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-verify-'));
  const sources = [referenceServer('flask-sqlalchemy', 'postgresql'), referenceServer('express-sequelize', 'postgresql')];
  let count = 0;
  for (let copy = 0; count < 2000; copy++) {
    for (const s of sources) {
      const target = path.join(root, `module${copy}`, path.basename(s));
      cpSync(s, target, { recursive: true });
    }
    count = 0;
    for (const f of readdirSync(root)) count += countSources(path.join(root, f));
  }
  writeFileSync(path.join(root, 'requirements.txt'), readFileSync(path.join(sources[0]!, 'requirements.txt')));
  const t = performance.now();
  const report = await verifyProject(root, { architecture: 'clean', database: 'postgresql', orm: 'sqlalchemy' });
  console.log(`verifiers on ${count} source files: ${seconds(performance.now() - t)} (architecture ${report.verifiers[0]!.passed ? 'holds' : 'violated'})`);
  rmSync(root, { recursive: true, force: true });
}

function countSources(d: string): number {
  let n = 0;
  for (const x of readdirSync(d)) {
    const f = path.join(d, x);
    n += statSync(f).isDirectory() ? countSources(f) : /\.(py|js)$/.test(x) ? 1 : 0;
  }
  return n;
}

await verifierTime();
await suitesOwnTime();
const wanted = (process.env.BENCH_SERVERS ?? '').split(',').filter(Boolean);
for (const server of REFERENCE_SERVERS) if (wanted.length === 0 || wanted.some((w) => server.name.includes(w))) await endToEnd(server);
