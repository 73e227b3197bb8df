/**
 * `envproof repro --corpus <file.jsonl>`: the seed's setting. Each line is one patch on a local repository: check
 * out the commit fresh, apply the patch, re-run the tests k times with and without the shim against the recorded
 * outcome, and re-run the unpatched baseline (its own first run as reference). Results go into the results store
 * as each run finishes; a corpus run that was stopped resumes with the first instance not finished.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import type { ResultsStore } from '../store/store.js';
import { parseDate, parseOutcome } from './reference.js';
import { runRepro, type ReproOptions } from './repro.js';
import type { Outcome, ReproReport } from './types.js';

export interface CorpusInstance {
  id: string;
  /** Absolute path of the local git repository. */
  repo: string;
  commit: string;
  /** Absolute path of the patch file (a unified diff, as `git apply` takes it). */
  patch: string;
  cmd: string;
  outcome: Outcome;
  recordedAt: Date;
  ecosystem: string;
}

const REQUIRED = ['id', 'repo', 'commit', 'patch', 'cmd', 'outcome', 'recordedAt'] as const;

/** Every line of the corpus, checked before anything runs: a line with a missing or bad field is an error naming it. */
export async function readCorpus(file: string): Promise<CorpusInstance[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new EnvproofError(`cannot read the corpus ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const base = path.dirname(path.resolve(file));
  const seen = new Set<string>();
  const out: CorpusInstance[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const where = `${file}:${i + 1}`;
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      throw new EnvproofError(`${where}: not a JSON object (${(err as Error).message})`, 'each line of the corpus is one JSON object');
    }
    for (const field of REQUIRED) {
      if (doc[field] === undefined || doc[field] === '') throw new EnvproofError(`${where}: missing field "${field}"`, `every line needs ${REQUIRED.join(', ')}`);
    }
    for (const field of ['id', 'repo', 'commit', 'patch', 'cmd'] as const) {
      if (typeof doc[field] !== 'string') throw new EnvproofError(`${where}: "${field}" must be a string`);
    }
    const id = doc.id as string;
    if (seen.has(id)) throw new EnvproofError(`${where}: the id "${id}" is used twice`);
    seen.add(id);
    out.push({
      id,
      repo: path.resolve(base, doc.repo as string),
      commit: doc.commit as string,
      patch: path.resolve(base, doc.patch as string),
      cmd: doc.cmd as string,
      outcome: parseOutcome(doc.outcome, `${where}: outcome`),
      recordedAt: parseDate(doc.recordedAt, `${where}: recordedAt`),
      ecosystem: typeof doc.ecosystem === 'string' ? doc.ecosystem : 'auto',
    });
  }
  if (out.length === 0) throw new EnvproofError(`the corpus ${file} has no instances`);
  return out;
}

async function git(args: string[], cwd?: string): Promise<{ ok: boolean; output: string }> {
  const r = await runProcess(['git', ...args], { ...(cwd ? { cwd } : {}), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' }, timeoutMs: 120_000 });
  return { ok: r.exitCode === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

/** An instance's two fresh checkouts: at its commit, and with its patch applied. */
export interface Checkouts {
  baseline: string;
  patched: string;
}

/** Fresh checkouts of the instance's commit: unpatched (the baseline) and patched. Errors name the instance. */
export async function checkouts(inst: CorpusInstance, parent: string): Promise<Checkouts> {
  if (!(await stat(inst.patch).catch(() => undefined))?.isFile()) throw new EnvproofError(`instance ${inst.id}: no patch file ${inst.patch}`);
  const dirs = { baseline: path.join(parent, 'baseline'), patched: path.join(parent, 'patched') };
  for (const dir of Object.values(dirs)) {
    const clone = await git(['clone', '--quiet', '--no-local', '--no-checkout', inst.repo, dir]);
    if (!clone.ok) throw new EnvproofError(`instance ${inst.id}: cannot clone ${inst.repo}`, 'the repository must be a local git repository', clone.output);
    const co = await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', inst.commit], dir);
    if (!co.ok) throw new EnvproofError(`instance ${inst.id}: commit ${inst.commit} is not in ${inst.repo}`, undefined, co.output);
  }
  const applied = await git(['apply', '--whitespace=nowarn', inst.patch], dirs.patched);
  if (!applied.ok) throw new EnvproofError(`instance ${inst.id}: the patch ${inst.patch} does not apply to ${inst.commit}`, undefined, applied.output);
  return dirs;
}

/** The options of every instance's runs (the corpus's `--k`, `--vary`, sandbox, limits, tracer). */
export type InstanceOptions = Omit<ReproOptions, 'dir' | 'command' | 'reference' | 'referenceFile' | 'asOf' | 'ecosystem' | 'shim' | 'onRun'>;

export interface CorpusOptions extends InstanceOptions {
  corpus: string;
  /** The corpus's lines, read and checked (readCorpus) before the store was opened. */
  instances: readonly CorpusInstance[];
  store: ResultsStore;
}

export interface CorpusSummary {
  corpus: string;
  done: string[];
  skipped: string[];
}

/** What recording an instance needs: its runs' options, the store, and the corpus's name there. */
type RecordingOptions = InstanceOptions & { store: ResultsStore; name: string };

/** The corpus's name in the store: its file's absolute path. */
export const corpusName = (file: string): string => path.resolve(file);

/**
 * Fresh checkouts of every instance in `work`, each checked (its commit there, its patch applying) before anything
 * runs: the first that fails is an error naming it.
 */
export async function checkInstances(instances: readonly CorpusInstance[], work: string): Promise<Map<string, Checkouts>> {
  const prepared = new Map<string, Checkouts>();
  for (const inst of instances) prepared.set(inst.id, await checkouts(inst, path.join(work, inst.id)));
  return prepared;
}

/** Runs every instance not yet done. All lines and all patches are checked first, so a bad one records nothing. */
export async function runCorpus(opts: CorpusOptions): Promise<CorpusSummary> {
  const { instances } = opts;
  const name = corpusName(opts.corpus);
  const tables = opts.store.repro();
  const work = await mkdtemp(path.join(os.tmpdir(), 'envproof-corpus-'));
  const summary: CorpusSummary = { corpus: name, done: [], skipped: [] };
  try {
    const done = new Set<string>();
    for (const i of instances) if ((await tables.status(name, i.id)) === 'done') done.add(i.id);
    const todo = instances.filter((i) => !done.has(i.id));
    summary.skipped = instances.filter((i) => !todo.includes(i)).map((i) => i.id);
    const prepared = await checkInstances(todo, work);
    for (const inst of todo) {
      opts.progress(`instance ${inst.id}`);
      await recordInstance(inst, prepared.get(inst.id)!, { ...opts, name });
      summary.done.push(inst.id);
    }
    return summary;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * One instance of a corpus job (`envproof repro --corpus --queue`, run by a worker): skipped when the store has it
 * `done`, else checked out fresh and run from the start, as `runCorpus` runs it. Returns whether it ran.
 */
export async function reproduceInstance(inst: CorpusInstance, opts: RecordingOptions): Promise<boolean> {
  if ((await opts.store.repro().status(opts.name, inst.id)) === 'done') return false;
  const work = await mkdtemp(path.join(os.tmpdir(), 'envproof-corpus-'));
  try {
    await recordInstance(inst, await checkouts(inst, work), opts);
    return true;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Records one instance from its start; one that fails with an error is removed (nothing of it stays half recorded). */
async function recordInstance(inst: CorpusInstance, dirs: Checkouts, opts: RecordingOptions): Promise<void> {
  const tables = opts.store.repro();
  await tables.begin({ corpus: opts.name, instanceId: inst.id, repo: inst.repo, commit: inst.commit, command: inst.cmd, recordedAt: inst.recordedAt.toISOString(), rerunAt: new Date().toISOString(), k: opts.k });
  try {
    await runInstance(inst, dirs, opts);
  } catch (err) {
    await tables.discard(opts.name, inst.id);
    throw err;
  }
}

/** The patched checkout against the recorded outcome, with the shim and attribution; then the unpatched baseline. */
async function runInstance(inst: CorpusInstance, dirs: Checkouts, opts: RecordingOptions): Promise<void> {
  const { store, name, ...options } = opts;
  const tables = store.repro();
  const common = { ...options, command: inst.cmd, ecosystem: inst.ecosystem };
  const patched: ReproReport = await runRepro({
    ...common,
    dir: dirs.patched,
    shim: true,
    reference: { recordedAt: inst.recordedAt, outcome: inst.outcome, path: `${name} (${inst.id})` },
    onRun: (run) => tables.addRun(name, inst.id, 'patched', run),
  });
  const baseline = await runRepro({ ...common, dir: dirs.baseline, shim: false, attribute: false, onRun: (run) => tables.addRun(name, inst.id, 'baseline', run) });
  await tables.finish(name, inst.id, {
    kind: patched.kind,
    verdict: patched.verdict,
    rate: patched.rate,
    shimVerdict: patched.shim?.verdict ?? null,
    shimRate: patched.shim?.rate ?? null,
    overheadRatio: patched.shim?.overheadRatio ?? null,
    baselineVerdict: baseline.verdict,
    baselineRate: baseline.rate,
    causes: patched.causes ?? null,
  });
}
