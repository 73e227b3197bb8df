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
import { Ajv } from 'ajv';
import { describeConfigErrors } from '../config/config.js';
import { EnvproofError } from '../core/errors.js';
import { runProcess, tail } from '../core/process.js';
import { evaluateBackend, type Evaluation } from './evaluate.js';
import type { ServingOptions } from './serve.js';
import type { Database } from './types.js';

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

const TASK_SCHEMA_PATH = new URL('../../schema/feature-task.schema.json', import.meta.url);
let validator: ReturnType<Ajv['compile']> | undefined;

/** The task file's document, checked against schema/feature-task.schema.json: every problem named by its key. */
async function readTaskDocument(file: string): Promise<TaskDocument> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new EnvproofError(`cannot read the feature task ${file}: ${(err as Error).message}`);
  }
  validator ??= new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(await readFile(TASK_SCHEMA_PATH, 'utf8')) as object);
  if (!validator(doc)) {
    const problems = describeConfigErrors(validator.errors ?? [], 'the task');
    throw new EnvproofError(`invalid feature task ${file}: ${problems.join('; ')}`, 'see docs/backend.md for the task format (schema/feature-task.schema.json)');
  }
  return doc as TaskDocument;
}

type TaskDocument = Omit<FeatureTask, 'setup'> & { setup?: string[] };

export async function loadFeatureTask(file: string): Promise<FeatureTask> {
  const doc = await readTaskDocument(file);
  const base = path.dirname(path.resolve(file));
  return {
    ...doc,
    repository: { path: path.resolve(base, doc.repository.path), commit: doc.repository.commit },
    removalPatch: path.resolve(base, doc.removalPatch),
    setup: doc.setup ?? [],
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
  try {
    await git(['clone', '--quiet', '--no-hardlinks', task.repository.path, dir], os.tmpdir(), `cloning ${task.repository.path}`);
    await git(['checkout', '--quiet', '--detach', task.repository.commit], dir, `checking out ${task.repository.commit}`);
    await git(['apply', '--whitespace=nowarn', task.removalPatch], dir, `applying the removal patch ${task.removalPatch}`);
    return dir;
  } catch (err) {
    if (!into) await rm(dir, { recursive: true, force: true });
    throw err;
  }
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
