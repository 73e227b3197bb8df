/**
 * `npm run bench`: runs every benchmark in bench/ (files named *.bench.ts) one after another and
 * prints their figures. Pass names to run only some: `npm run bench -- trace-parse`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f.replace('.bench.ts', '')} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
