/**
 * `envproof run --repro <k>`: after the protocol, every successful final project is re-run k times in fresh
 * sandboxes with fresh installs (built, and its entry point run, as the audit ran it), against the recorded
 * success. Each run key is one instance of the repro tables (corpus `envproof run`), written as its runs finish,
 * so a stopped `run --repro` resumes: finished instances of the same final tree are skipped, a `running` one
 * starts over.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError, errorMessage } from '../core/errors.js';
import { restoreTree } from '../protocol/tree.js';
import { RUN_CORPUS, type ReproInstanceRow } from '../store/repro-tables.js';
import type { ResultsStore } from '../store/store.js';
import type { RunKey } from '../store/types.js';
import { runRepro, type ReproOptions } from './repro.js';

export type FinalProjectOptions = Pick<ReproOptions, 'k' | 'vary' | 'attribute' | 'trials' | 'backend' | 'systemPackages' | 'timeoutSec' | 'progress'>;

export interface FinalProjectSummary {
  /** Final projects re-run now. */
  reproduced: number;
  /** Already re-run (same final tree) by an earlier `run --repro`. */
  alreadyDone: number;
  /** Runs without a successful final project (failed, unfinished, set aside). */
  notSuccessful: number;
  /** Final projects whose re-runs could not be made (the sandbox failed): nothing recorded, tried again next time. */
  errors: { run: string; message: string }[];
}

/** The instance id of a run key in the repro tables. */
export function runInstanceId(key: RunKey): string {
  return JSON.stringify([key.agent, key.language, key.taskId, key.trial]);
}

/** The run key of an instance id written by `runInstanceId` (source envproof). */
export function runKeyOf(instanceId: string): RunKey {
  const [agent, language, taskId, trial] = JSON.parse(instanceId) as [string, RunKey['language'], string, number];
  return { source: 'envproof', agent, language, taskId, trial };
}

/** The finished `run --repro` instances of the store, with their run keys. */
export async function reproducedRuns(store: ResultsStore): Promise<{ key: RunKey; row: ReproInstanceRow }[]> {
  return (await store.repro().instances(RUN_CORPUS)).map((row) => ({ key: runKeyOf(row.instanceId), row }));
}

function label(key: RunKey): string {
  return `${key.agent} ${key.taskId} ${key.language} #${key.trial}`;
}

/** The successful attempt of a finished run: its tree and when it was recorded; undefined when there is none. */
async function finalAttempt(store: ResultsStore, key: RunKey): Promise<{ treeHash: string; recordedAt: Date } | undefined> {
  const run = await store.run(key);
  if (!run || (run.status ?? 'done') !== 'done' || !run.finalSuccess) return undefined;
  const success = (await store.attempts(key)).filter((a) => a.success && a.treeHash).at(-1);
  if (!success?.treeHash) return undefined;
  return { treeHash: success.treeHash, recordedAt: new Date(success.startedAt ?? Date.now()) };
}

export async function reproduceFinalProjects(keys: readonly RunKey[], store: ResultsStore, opts: FinalProjectOptions): Promise<FinalProjectSummary> {
  const tables = store.repro();
  const summary: FinalProjectSummary = { reproduced: 0, alreadyDone: 0, notSuccessful: 0, errors: [] };
  for (const key of keys) {
    const final = await finalAttempt(store, key);
    if (!final) {
      summary.notSuccessful++;
      continue;
    }
    const id = runInstanceId(key);
    const earlier = await tables.instance(RUN_CORPUS, id);
    if (earlier?.status === 'done' && earlier.commit === final.treeHash) {
      summary.alreadyDone++;
      continue;
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'envproof-run-repro-'));
    try {
      const tree = await store.tree(final.treeHash);
      await restoreTree(dir, tree.entries, tree.blob);
      opts.progress(`reproducing ${label(key)}: ${opts.k} fresh re-run${opts.k === 1 ? '' : 's'}`);
      await tables.begin({ corpus: RUN_CORPUS, instanceId: id, repo: 'envproof run', commit: final.treeHash, command: '(the entry point)', recordedAt: final.recordedAt.toISOString(), rerunAt: new Date().toISOString(), k: opts.k });
      const report = await runRepro({
        ...opts,
        dir,
        ecosystem: key.language,
        shim: false,
        reference: { recordedAt: final.recordedAt, outcome: { status: 'pass', exitCode: 0 }, path: `the run ${label(key)}` },
        progress: (m) => opts.progress(`${label(key)}: ${m}`),
        onRun: (run) => tables.addRun(RUN_CORPUS, id, 'patched', run),
      });
      await tables.finish(RUN_CORPUS, id, {
        kind: report.kind,
        verdict: report.verdict,
        rate: report.rate,
        shimVerdict: null,
        shimRate: null,
        overheadRatio: null,
        baselineVerdict: null,
        baselineRate: null,
        causes: report.causes ?? null,
        command: report.command,
      });
      summary.reproduced++;
    } catch (err) {
      await tables.discard(RUN_CORPUS, id);
      if (!(err instanceof EnvproofError)) throw err;
      summary.errors.push({ run: label(key), message: errorMessage(err) });
      opts.progress(`${label(key)}: not reproduced: ${errorMessage(err)}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return summary;
}
