/**
 * Feature-implementation tasks: a feature removed from an existing implementation by a patch; the agent
 * restores it. A task is a JSON file (docs/backend.md):
 *
 *   { "id", "title", "language": "python"|"javascript", "framework", "database"?: "sqlite"|"postgresql",
 *     "port"?, "repository": { "path", "commit" }, "removalPatch": "<file, relative to the task file>",
 *     "setup"?: ["<command>", ...], "run"?: "<command>", "removed": { "lines", "files" }, "instruction"? }
 *
 * Evaluation starts from a pristine checkout of the repository at the commit, applies the removal patch, then
 * the agent's patch, and runs the behavioural suites; no verifiers (the constraints are those of the codebase).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { runProcess, tail } from '../core/process.js';
import { evaluateBackend, type Evaluation } from './evaluate.js';
import type { ServingOptions } from './serve.js';
import { DATABASES, type Database } from './types.js';

export interface FeatureTask {
  id: string;
  title: string;
  language: 'python' | 'javascript';
  framework: string;
  database?: Database;
  port?: number;
  repository: { path: string; commit: string };
  /** Absolute path of the removal patch. */
  removalPatch: string;
  setup: string[];
  run?: string;
  removed: { lines: number; files: number };
  instruction?: string;
}

const DEFAULT_PORTS = { python: 8080, javascript: 3000 } as const;
const GIT_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', HOME: os.tmpdir() };

function invalid(file: string, problem: string): never {
  throw new EnvproofError(`invalid feature task ${file}: ${problem}`, 'see docs/backend.md for the task format');
}

export async function loadFeatureTask(file: string): Promise<FeatureTask> {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new EnvproofError(`cannot read the feature task ${file}: ${(err as Error).message}`);
  }
  const text = (key: string) => {
    const v = doc[key];
    if (typeof v !== 'string' || !v.trim()) invalid(file, `"${key}" must be a non-empty string`);
    return v;
  };
  const language = text('language');
  if (language !== 'python' && language !== 'javascript') invalid(file, '"language" must be python or javascript');
  const repo = doc.repository as { path?: unknown; commit?: unknown } | undefined;
  if (typeof repo?.path !== 'string' || typeof repo.commit !== 'string' || !/^[0-9a-f]{7,40}$/.test(repo.commit)) {
    invalid(file, '"repository" must be { "path": "<git repository>", "commit": "<sha>" }');
  }
  const removed = doc.removed as { lines?: unknown; files?: unknown } | undefined;
  if (!Number.isInteger(removed?.lines) || !Number.isInteger(removed?.files)) invalid(file, '"removed" must be { "lines": <n>, "files": <n> }');
  const database = doc.database;
  if (database !== undefined && !DATABASES.includes(database as Database)) invalid(file, `"database" must be one of ${DATABASES.join(', ')}`);
  const setup = doc.setup ?? [];
  if (!Array.isArray(setup) || setup.some((c) => typeof c !== 'string')) invalid(file, '"setup" must be a list of commands');
  const base = path.dirname(path.resolve(file));
  return {
    id: text('id'),
    title: text('title'),
    language,
    framework: text('framework'),
    ...(database ? { database: database as Database } : {}),
    ...(typeof doc.port === 'number' ? { port: doc.port } : {}),
    repository: { path: path.resolve(base, repo!.path as string), commit: repo!.commit as string },
    removalPatch: path.resolve(base, text('removalPatch')),
    setup: setup as string[],
    ...(typeof doc.run === 'string' ? { run: doc.run } : {}),
    removed: { lines: removed!.lines as number, files: removed!.files as number },
    ...(typeof doc.instruction === 'string' ? { instruction: doc.instruction } : {}),
  };
}

async function git(args: string[], cwd: string, what: string): Promise<string> {
  const r = await runProcess(['git', ...args], { cwd, env: GIT_ENV, timeoutMs: 300_000 });
  if (r.exitCode !== 0) throw new EnvproofError(`${what}: git ${args[0]} failed`, undefined, tail(`${r.stdout}\n${r.stderr}`));
  return r.stdout;
}

/** The repository at the task's commit with the removal patch applied, in a new directory: what the agent starts from. */
export async function strippedCheckout(task: FeatureTask, into?: string): Promise<string> {
  const dir = into ?? (await mkdtemp(path.join(os.tmpdir(), `envproof-feature-${task.id}-`)));
  await git(['clone', '--quiet', '--no-hardlinks', task.repository.path, dir], os.tmpdir(), `cloning ${task.repository.path}`);
  await git(['checkout', '--quiet', '--detach', task.repository.commit], dir, `checking out ${task.repository.commit}`);
  await git(['apply', '--whitespace=nowarn', task.removalPatch], dir, `applying the removal patch ${task.removalPatch}`);
  return dir;
}

/**
 * The agent's patch: what its final tree changes relative to the stripped checkout (a git work tree whose HEAD
 * is the task's commit, with the removal applied and not committed).
 */
export async function agentPatch(task: FeatureTask, workspace: string): Promise<string> {
  const baseline = await strippedCheckout(task);
  try {
    await git(['add', '-A'], baseline, 'staging the stripped baseline');
    await git(['-c', 'user.name=envproof', '-c', 'user.email=envproof@localhost', 'commit', '--quiet', '--allow-empty', '-m', 'baseline'], baseline, 'recording the baseline');
    await git(['--work-tree', workspace, 'add', '-A'], baseline, "staging the agent's tree");
    return await git(['diff', '--cached', '--binary', 'HEAD'], baseline, "diffing the agent's tree");
  } finally {
    await rm(baseline, { recursive: true, force: true });
  }
}

/** Pristine checkout, removal patch, the agent's patch (when given), then the behavioural suites. */
export async function evaluateFeatureTask(task: FeatureTask, patch: string | undefined, opts: ServingOptions): Promise<Evaluation> {
  const dir = await strippedCheckout(task);
  try {
    if (patch && patch.trim()) {
      const file = path.join(dir, '..', `${path.basename(dir)}.agent.patch`);
      await writeFile(file, patch);
      try {
        await git(['apply', '--whitespace=nowarn', file], dir, "applying the agent's patch");
      } finally {
        await rm(file, { force: true });
      }
    }
    await rm(path.join(dir, '.git'), { recursive: true, force: true });
    return await evaluateBackend({
      dir,
      language: task.language,
      constraints: {},
      ...opts,
      port: task.port ?? DEFAULT_PORTS[task.language],
      setup: task.setup,
      ...(task.run ? { start: task.run } : {}),
      ...(task.database ? { database: task.database } : {}),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
