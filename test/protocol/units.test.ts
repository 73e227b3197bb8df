// tier: quick
/** The protocol's small parts that need no agent and no install: retry waits, transcripts, --rerun, progress. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clock, LiveProgress, progressLine } from '../../src/cli/run-progress.js';
import type { ProgressEvent } from '../../src/protocol/matrix.js';
import { markReruns, parseRerun } from '../../src/protocol/rerun.js';
import { MAX_RETRY_AFTER_SEC, retryingInfrastructure, retryWaitSec } from '../../src/protocol/retry.js';
import type { RunPlan } from '../../src/protocol/run-one.js';
import { boundedTranscript } from '../../src/protocol/transcript.js';
import { ResultsStore } from '../../src/store/store.js';
import type { AttemptRecord, StoredRun } from '../../src/store/types.js';
import { tempStore } from './helpers.js';

describe('retries of infrastructure failures', () => {
  test('the wait doubles from --retry-delay, and is as long as Retry-After asks when that is longer (within a bound)', () => {
    assert.deepEqual([1, 2, 3].map((r) => retryWaitSec(r, 5)), [5, 10, 20]);
    assert.equal(retryWaitSec(1, 5, 30), 30);
    assert.equal(retryWaitSec(3, 5, 2), 20, 'a shorter Retry-After does not shorten the backoff');
    assert.equal(retryWaitSec(1, 0, 86_400), MAX_RETRY_AFTER_SEC);
  });

  test('each retry says how long it waits and why; a result that is not infrastructure ends the retries', async () => {
    const said: string[] = [];
    const results = ['busy', 'busy', 'ok', 'busy'];
    let calls = 0;
    const last = await retryingInfrastructure(
      { retries: 5, delaySec: 0, progress: (m) => said.push(m) },
      async () => results[calls++]!,
      (r) => (r === 'busy' ? { cause: 'HTTP 429', retryAfterSec: calls === 1 ? 0 : undefined } : undefined),
    );
    assert.equal(last, 'ok');
    assert.equal(calls, 3);
    assert.deepEqual(said, ['retrying in 0 s (HTTP 429)', 'retrying in 0 s (HTTP 429)']);
  });

  test('an aborted signal ends a wait at once and retries no more', async () => {
    const stop = new AbortController();
    let calls = 0;
    const started = Date.now();
    setTimeout(() => stop.abort('SIGINT'), 100);
    await retryingInfrastructure({ retries: 3, delaySec: 60, progress: () => {}, signal: stop.signal }, async () => ++calls, () => ({ cause: 'HTTP 503' }));
    assert.equal(calls, 1);
    assert.ok(Date.now() - started < 5000, 'the 60 s wait was cut short');
  });
});

test('a transcript keeps its beginning and its end within the bound, and says how much it left out', () => {
  assert.equal(boundedTranscript(''), null);
  assert.equal(boundedTranscript('short'), 'short');
  const long = `START${'x'.repeat(10_000)}END`;
  const kept = boundedTranscript(long, 1000)!;
  assert.ok(kept.startsWith('START'));
  assert.ok(kept.endsWith('END'));
  assert.match(kept, /\[… 9008 bytes left out …\]/);
  assert.ok(Buffer.byteLength(kept) < 1100);
});

test('--rerun takes failed, infrastructure or an attempt error class', () => {
  for (const v of ['failed', 'infrastructure', 'code-bug', 'agent-error', 'timeout']) assert.equal(parseRerun(v), v);
  assert.throws(() => parseRerun('broken'), /--rerun broken: not a choice/);
});

test('--rerun chooses among the planned runs the store holds: failed ones, set-aside ones, or those with an attempt of a class', async () => {
  const store = await ResultsStore.open(tempStore());
  try {
    const run = (taskId: string, over: Partial<StoredRun>): StoredRun => ({
      source: 'envproof', agent: 'claude', language: 'python', taskId, trial: 1, primary: true, firstSuccess: false, finalSuccess: false, repairDepth: null,
      initialErrorType: 'CodeBug', declared: [], installed: [], traced: [], claimedCount: 0, transitiveCount: 0, status: 'done', ...over,
    });
    const attempt = (n: number, errorClass: string | null): AttemptRecord => ({
      attempt: n, treeHash: null, manifestPath: null, manifest: null, success: errorClass === null, errorClass, errorTail: null, startedAt: null, durationMs: null, tokensIn: null, tokensOut: null, costUsd: null,
    });
    await store.putRun(run('p_01', {}), [attempt(0, 'code-bug'), attempt(1, 'code-bug')]);
    await store.putRun(run('p_02', { finalSuccess: true, repairDepth: 1 }), [attempt(0, 'agent-error'), attempt(1, null)]);
    await store.putRun(run('p_03', { status: 'infrastructure-failed' }));
    await store.putRun(run('p_04', { status: 'running' }), [attempt(0, 'code-bug')]);
    const plans = ['p_01', 'p_02', 'p_03', 'p_04', 'p_05'].map((id) => ({ agent: { name: 'claude' }, task: { id }, language: 'python', trial: 1 }) as unknown as RunPlan);
    const chosen = async (which: string) => (await markReruns(plans, store, which)).filter((p) => p.fresh).map((p) => p.task.id);
    assert.deepEqual(await chosen('failed'), ['p_01']);
    assert.deepEqual(await chosen('infrastructure'), ['p_03']);
    assert.deepEqual(await chosen('agent-error'), ['p_02'], 'a run repaired after an agent error is redone too');
    assert.deepEqual(await chosen('code-bug'), ['p_01'], 'a running run resumes rather than restarts');
    assert.deepEqual(await chosen('timeout'), []);
  } finally {
    await store.close();
  }
});

const plan = { agent: { name: 'claude' }, task: { id: 'p_02' }, language: 'python', trial: 1 } as unknown as RunPlan;
const event = (over: Partial<ProgressEvent>): ProgressEvent => ({ done: 1, total: 4, failures: 0, plan, phase: 'generating', slot: 0, elapsedMs: 75_000, ...over });

describe('progress', () => {
  test('a line says where the matrix stands, how long it has taken and should take, and what happened', () => {
    assert.equal(clock(4_000_000), '1:06:40');
    assert.equal(progressLine(event({ phase: 'attempt 0 failed (missing-dependency)', etaMs: 225_000, failures: 1 })), '[1/4 1:15 ETA 3:45] claude p_02 python #1: attempt 0 failed (missing-dependency) (failed so far: 1)');
    assert.equal(progressLine(event({ phase: 'retrying in 4 s (HTTP 429)' })), '[1/4 1:15] claude p_02 python #1: retrying in 4 s (HTTP 429)');
  });

  test('on a terminal: what happened scrolls, and one live line per worker slot stays below it', () => {
    const written: string[] = [];
    let now = 0;
    const live = new LiveProgress({ write: (t: string) => written.push(t), isTTY: true, columns: 70 }, 2, () => now, 60_000);
    live.event(event({ phase: 'generating', slot: 0 }));
    now = 3000;
    live.event(event({ phase: 'executing attempt 0', slot: 0 }));
    live.event(event({ phase: 'generating', slot: 1, plan: { ...plan, task: { id: 'p_03' } } as RunPlan }));
    now = 5000;
    live.event(event({ phase: 'attempt 0 failed (code-bug)', slot: 0 }));
    live.event(event({ phase: 'retrying in 4 s (HTTP 429)', slot: 1, plan: { ...plan, task: { id: 'p_03' } } as RunPlan }));
    const screen = terminal(written.join(''));
    assert.deepEqual(screen, [
      '[1/4 1:15] claude p_02 python #1: attempt 0 failed (code-bug)',
      '[1/4 1:15] claude p_03 python #1: retrying in 4 s (HTTP 429)',
      '1/4 runs ended, 0 failed, 0:05 elapsed',
      '  slot 1: claude p_02 python #1: attempt 0 failed (code-bug) (0:05)',
      '  slot 2: claude p_03 python #1: retrying in 4 s (HTTP 429) (0:02)',
    ]);
    live.event(event({ phase: 'failed', slot: 0, done: 2, failures: 1 }));
    live.close();
    assert.deepEqual(terminal(written.join('')).slice(-1), ['[2/4 1:15] claude p_02 python #1: failed (failed so far: 1)'], 'closing leaves the scrolled lines, not the live ones');
  });

  test('a live line wider than the terminal is cut, so that it never wraps', () => {
    const written: string[] = [];
    const live = new LiveProgress({ write: (t: string) => written.push(t), isTTY: true, columns: 40 }, 1, () => 0, 60_000);
    live.event(event({ phase: 'executing attempt 0' }));
    live.close();
    assert.equal(terminal(written.slice(0, -1).join('')).at(-1), '  slot 1: claude p_02 python #1: execu…');
  });
});

/** The lines a terminal shows after `text`: enough of ANSI for what LiveProgress writes (cursor up, first column, erase below). */
function terminal(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  for (const token of text.match(/\x1b\[\d*[AGJ]|\n|[^\x1b\n]+/g) ?? []) {
    if (token === '\n') {
      row++;
      if (row === lines.length) lines.push('');
    } else if (token.endsWith('A')) {
      row = Math.max(0, row - Number(token.slice(2, -1)));
    } else if (token.endsWith('J')) {
      lines.length = row + 1;
      lines[row] = '';
    } else if (!token.endsWith('G')) {
      lines[row] += token;
    }
  }
  return lines.filter((l) => l !== '');
}
