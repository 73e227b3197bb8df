import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../core/errors.js';
import { loadBackendSuite } from './backend.js';
import { loadEnvgapPrompts } from '../paper-data/envgap-prompts.js';
import { loadSuiteFile } from './suite-file.js';
import type { Task, TaskSuite } from './types.js';

const ENVGAP_PREFIX = 'envgap-prompts:';

/** src/tasks/ with tsx and dist/tasks/ after the build sit at the same depth below the package root. */
export const BUNDLED_SUITE_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'suites', 'bundled.yaml');

/**
 * The suite named on the command line: `bundled` (the default), `backend` (the Conduit API under layered
 * constraints, over the contract given as `contract`), `envgap-prompts:<dir>` (the paper's own prompt files from
 * a local copy of its repository), or the path of a YAML/JSON suite file.
 */
export function resolveSuite(spec?: string, options: { contract?: string } = {}): TaskSuite {
  if (spec === undefined || spec === 'bundled') return loadSuiteFile(BUNDLED_SUITE_FILE, 'bundled');
  if (spec === 'backend') return loadBackendSuite(options.contract);
  if (spec.startsWith(ENVGAP_PREFIX)) {
    const dir = spec.slice(ENVGAP_PREFIX.length);
    if (!dir) throw new UsageError('envgap-prompts: needs a folder', 'write envgap-prompts:<dir>, <dir> being the data/prompts folder of a copy of the EnvGap repository');
    return loadEnvgapPrompts(dir);
  }
  return loadSuiteFile(spec);
}

/** The ids an item names: an exact id, or a range `<from>-<to>` in suite order; ids may themselves contain "-". */
function idsOfItem(suite: TaskSuite, item: string, unknown: string[]): string[] {
  const ids = suite.tasks.map((t) => t.id);
  if (ids.includes(item)) return [item];
  const dashes = [...item.matchAll(/-/g)].map((m) => m.index);
  for (const at of dashes) {
    const [from, to] = [item.slice(0, at), item.slice(at + 1)];
    const [a, b] = [ids.indexOf(from), ids.indexOf(to)];
    if (a === -1 || b === -1) continue;
    if (a > b) throw new UsageError(`task range ${item} runs backwards`, `write it as ${to}-${from}`);
    return ids.slice(a, b + 1);
  }
  if (dashes.length === 1) unknown.push(...item.split('-').filter((end) => !ids.includes(end)));
  else unknown.push(item);
  return [];
}

/**
 * The tasks a selection names: `all` (or nothing) for every task, a comma list (`p_01,p_03`), ranges in suite
 * order (`p_01-p_05`) or both mixed. Each task comes once, in suite order.
 */
export function selectTasks(suite: TaskSuite, ids?: string): Task[] {
  if (ids === undefined || ids.trim() === '' || ids.trim() === 'all') return suite.tasks;
  const items = ids.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new UsageError(`task selection "${ids}" names no task`, 'give "all", ids separated by commas, or a range such as p_01-p_05');
  const unknown: string[] = [];
  const chosen = new Set(items.flatMap((item) => idsOfItem(suite, item, unknown)));
  if (unknown.length > 0) throw unknownTasks(suite, unknown);
  return suite.tasks.filter((t) => chosen.has(t.id));
}

/** One task by its exact id. */
export function findTask(suite: TaskSuite, id: string): Task {
  const task = suite.tasks.find((t) => t.id === id);
  if (!task) throw unknownTasks(suite, [id]);
  return task;
}

function unknownTasks(suite: TaskSuite, unknown: readonly string[]): UsageError {
  return new UsageError(
    `unknown task${unknown.length > 1 ? 's' : ''} in suite ${suite.name}: ${unknown.join(', ')}`,
    `valid ids: ${suite.tasks.map((t) => t.id).join(', ')}`,
  );
}
