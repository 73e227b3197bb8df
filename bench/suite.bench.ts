/**
 * `npm run bench -- suite`: the test suite's own time against its goals (docs/testing.md). Runs the quick tier now
 * (goal: 5 minutes) and prints what the last full run in this checkout measured (goals: 25 minutes on a fresh
 * machine, 15 with the environments and package caches warm), with the slowest files. A full run is not started
 * here: it is `npm test`, which records itself.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRunRecords, type RunRecord } from '../test/runner/timings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

function line(what: string, record: RunRecord | undefined, goalMin: number): void {
  if (!record) {
    process.stdout.write(`${what}: no run recorded in this checkout (run it first)\n`);
    return;
  }
  const ratio = record.wallMs / (goalMin * 60_000);
  process.stdout.write(
    `${what}: ${minutes(record.wallMs)} for ${record.tests} tests in ${record.files} files, ${record.concurrency} at a time` +
      `${record.prepareMs ? `, of which ${minutes(record.prepareMs)} building environments` : ''}` +
      ` (goal ${goalMin} min: ×${ratio.toFixed(2)}${ratio <= 1 ? ', met' : ', MISSED'}); ${record.failed} failed files; ended ${record.endedAt}\n`,
  );
}

const quick = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/runner/main.ts'), '--quick'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
const records = readRunRecords(ROOT);
line('quick tier (now)', records.quick, 5);
const full = records.full;
line(`full suite (last run, environments ${full?.environmentsWereReady ? 'warm' : 'built during the run'})`, full, full?.environmentsWereReady ? 15 : 25);
if (full) {
  process.stdout.write('slowest files of the last full run:\n');
  for (const s of full.slowest) process.stdout.write(`${(s.ms / 1000).toFixed(1).padStart(8)} s  ${s.file}\n`);
}
process.exitCode = quick.status === 0 ? 0 : 1;
