/**
 * envproof's own cost in an audit (parsing, attribution, metrics — not the install and not the program's
 * run) on a JavaScript project with more than 100 installed packages, and its peak memory.
 * Target: own time ≤ 1 s.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runAudit } from '../src/audit/audit.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'envproof-bench-audit-'));
await writeFile(
  path.join(dir, 'package.json'),
  JSON.stringify({ name: 'bench-project', version: '1.0.0', private: true, dependencies: { eslint: '8.57.0', mocha: '10.7.3' } }),
);
await writeFile(path.join(dir, 'index.js'), "const { ESLint } = require('eslint');\nconst Mocha = require('mocha');\nnew ESLint({ useEslintrc: false });\nnew Mocha();\nconsole.log('ok');\n");
try {
  const report = await runAudit({ dir, ecosystem: 'auto', timeoutSec: 120, keep: false, sandbox: 'host', progress: () => {} });
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`project: eslint@8.57.0 + mocha@10.7.3, ${report.layers.installed.length} installed packages, ${report.layers.traced?.length ?? "no"} traced`);
  console.log(`phases (ms): ${JSON.stringify(report.phasesMs)}`);
  const own = report.phasesMs.analysis + report.phasesMs.tracing;
  console.log(`own time (reading the trace + analysis): ${own} ms  (target ≤ 1000 ms, ratio ${(own / 1000).toFixed(2)})`);
  console.log(`peak memory of the envproof process: ${rssMb.toFixed(0)} MB`);
  if (report.layers.installed.length < 100) console.log('warning: fewer than 100 installed packages');
} finally {
  await rm(dir, { recursive: true, force: true });
}
