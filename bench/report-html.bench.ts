/**
 * `npm run bench -- report-html`: time and size of the HTML report (figures rendered to SVG by Vega, tables)
 * for the paper's 1,000 runs and for 100,000 runs made by repeating them under new task ids. The aggregation
 * itself is timed by the `report` benchmark; here only `renderHtml` is.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeAggregate, type RunRecord, type TaskInfo } from '../src/metrics/aggregate.js';
import { renderHtml } from '../src/report/html.js';
import { readEnvgapDir } from '../src/paper-data/envgap-import.js';

const PAPER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data', 'envgap-paper');

function repeated(runs: readonly RunRecord[], tasks: readonly TaskInfo[], times: number): [RunRecord[], TaskInfo[]] {
  const copies = Array.from({ length: times }, (_, k) => k);
  return [
    copies.flatMap((k) => runs.map((r) => ({ ...r, taskId: `${r.taskId}_${k}` }))),
    copies.flatMap((k) => tasks.map((t) => ({ ...t, id: `${t.id}_${k}` }))),
  ];
}

async function bench(label: string, runs: RunRecord[], tasks: TaskInfo[]): Promise<void> {
  const report = computeAggregate(runs, tasks);
  (globalThis as { gc?: () => void }).gc?.();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const html = await renderHtml(report);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  console.log(
    `${label.padEnd(16)} renderHtml ${ms.toFixed(0).padStart(6)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(6)} ms cpu, ` +
      `${(html.length / 1024).toFixed(0).padStart(5)} KiB, max RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
}

const paper = readEnvgapDir(PAPER);
await renderHtml(computeAggregate(paper.runs, paper.tasks)); // warm-up: module loading and JIT
await bench('paper (1,000)', paper.runs, paper.tasks);
const [runs, tasks] = repeated(paper.runs, paper.tasks, 100);
await bench(`×100 (${runs.length.toLocaleString('en-US')})`, runs, tasks);
