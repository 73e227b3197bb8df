// tier: quick
/** Bad input to `envproof import envgap-csv` and `envproof report`: exit 2, file and line named, store untouched. */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ResultsStore } from '../../src/store/store.js';
import type { StoredRun } from '../../src/store/types.js';
import { runCli } from '../helpers/cli.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'handmade');

async function storedRuns(store: string): Promise<StoredRun[]> {
  const s = await ResultsStore.open(store, { readonly: true });
  try {
    return await s.runs();
  } finally {
    await s.close();
  }
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${file} lacks ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe('import errors', () => {
  let dir: string;
  let store: string;
  let copy: string;
  let good: StoredRun[];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'envproof-import-errors-'));
    store = path.join(dir, 'store.db');
    const r = runCli(['import', 'envgap-csv', FIXTURE, '--store', store]);
    assert.equal(r.status, 0, r.stderr);
    good = await storedRuns(store);
    assert.equal(good.length, 24);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function freshCopy(name: string): string {
    copy = path.join(dir, name);
    cpSync(FIXTURE, copy, { recursive: true });
    return copy;
  }

  it('a row with a missing field: exit 2, file and line named, nothing of the import written', async () => {
    const root = freshCopy('short-row');
    // A valid change in a file read first (results/raw) ...
    edit(path.join(root, 'results/raw/claude_python_handmade.csv'), 'p_01,claude,python,"requests==2.31.0,pandas",2', 'p_01,claude,python,"requests==2.31.0,pandas,flask",3');
    // ... and a malformed line 4 (p_03) in a file read later (data/results): the runtime_deps field is gone.
    edit(path.join(root, 'data/results/codex_cpp_handmade.csv'), 'p_03,codex,cpp,zlib,1,zlib,1,False,MissingDep,False,none', 'p_03,codex,cpp,zlib,1,zlib,1,False,MissingDep,False');
    const r = runCli(['import', 'envgap-csv', root, '--store', store]);
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /data\/results\/codex_cpp_handmade\.csv:4: 10 fields where the header has 11/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(await storedRuns(store), good);
  });

  it('an unterminated quote names the line the record starts on', async () => {
    const root = freshCopy('open-quote');
    edit(path.join(root, 'results/raw/claude_cpp_handmade.csv'), 'p_04,claude,cpp,Boost,1,Boost', 'p_04,claude,cpp,"Boost,1,Boost');
    const r = runCli(['import', 'envgap-csv', root, '--store', store]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /results\/raw\/claude_cpp_handmade\.csv:5: a quoted field is never closed/);
    assert.deepEqual(await storedRuns(store), good);
  });

  it('a prompt id that is not p_NN, and a task listed twice', async () => {
    const root = freshCopy('bad-id');
    edit(path.join(root, 'data/results/codex_python_handmade.csv'), 'p_02,codex', 'task2,codex');
    let r = runCli(['import', 'envgap-csv', root, '--store', store]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /codex_python_handmade\.csv:3: prompt_id "task2" is not of the form p_NN/);
    edit(path.join(root, 'data/results/codex_python_handmade.csv'), 'task2,codex', 'p_01,codex');
    r = runCli(['import', 'envgap-csv', root, '--store', store]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /codex_python_handmade\.csv:3: p_01 appears twice/);
    assert.deepEqual(await storedRuns(store), good);
  });

  it('a missing column is named with the header line', () => {
    const root = freshCopy('no-column');
    const file = path.join(root, 'data/results/codex_cpp_handmade.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace('runtime_deps', 'runtime'));
    const r = runCli(['import', 'envgap-csv', root, '--store', store]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /codex_cpp_handmade\.csv:1: header lacks column\(s\) runtime_deps/);
  });

  it('the same table in both folders with different content is refused; identical copies are fine', () => {
    const root = freshCopy('duplicate');
    const a = path.join(root, 'results/raw/claude_cpp_handmade.csv');
    cpSync(a, path.join(root, 'data/results/claude_cpp_handmade.csv'));
    const fresh = path.join(dir, 'dup.db');
    let r = runCli(['import', 'envgap-csv', root, '--store', fresh]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /imported 24 runs \(16 primary\) from 6 files/);
    edit(path.join(root, 'data/results/claude_cpp_handmade.csv'), 'Boost,1,Boost', 'Boost,1,boost');
    r = runCli(['import', 'envgap-csv', root, '--store', fresh]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /claude_cpp_handmade\.csv and .*claude_cpp_handmade\.csv both hold claude trial 1 cpp runs/);
  });

  it('a folder that is not the paper layout, and a malformed import into a new store creates no store', () => {
    const fresh = path.join(dir, 'never.db');
    const r = runCli(['import', 'envgap-csv', path.join(dir, 'nowhere'), '--store', fresh]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /does not exist/);
    const root = freshCopy('empty-layout');
    rmSync(path.join(root, 'results'), { recursive: true });
    rmSync(path.join(root, 'data/results'), { recursive: true });
    const r2 = runCli(['import', 'envgap-csv', root, '--store', fresh]);
    assert.equal(r2.status, 2);
    assert.match(r2.stderr, /has neither results\/raw nor data\/results/);
    assert.match(r2.stderr, /hint: /);
    assert.equal(existsSync(fresh), false);
  });

  it('report: a missing store, and csv without --out', () => {
    let r = runCli(['report', '--store', path.join(dir, 'absent.db')]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /cannot open the results store .*absent\.db/);
    r = runCli(['report', '--store', store, '--format', 'csv']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--format csv .* needs --out/);
  });
});
