// tier: quick
/**
 * A store that is not one, is damaged, or cannot be written: a clear error (exit 2) naming the file and what is
 * wrong, never "internal error". Reading commands (report, export, view) never create, migrate or rewrite a file.
 * Real files: text, a store with a page overwritten, a store made immutable (chattr +i) or on a read-only mount.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { cliCommand, runCli } from '../helpers/cli.js';

const HANDMADE = path.join(import.meta.dirname, '..', 'report', 'fixtures', 'handmade');
const dir = mkdtempSync(path.join(tmpdir(), 'envproof-store-faults-'));
const good = path.join(dir, 'good.db');
after(() => rmSync(dir, { recursive: true, force: true }));

before(() => {
  const r = runCli(['import', 'envgap-csv', HANDMADE, '--store', good]);
  assert.equal(r.status, 0, r.stderr);
});

function refused(args: string[], message: RegExp): void {
  const r = runCli(args);
  assert.equal(r.status, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /internal error|a bug in envproof/);
}

describe('stores that fail cleanly', () => {
  test('export, report and view on a file that is not a database', () => {
    const text = path.join(dir, 'notes.db');
    writeFileSync(text, 'these are my notes, not a database\n'.repeat(20));
    for (const cmd of [['export'], ['report', '--format', 'json']]) refused([...cmd, '--store', text], /notes\.db is not an envproof store \(not a SQLite database\)/);
    assert.equal(readFileSync(text, 'utf8'), 'these are my notes, not a database\n'.repeat(20));
  });

  test('report on a store with a damaged page says to run sqlite3 .recover', () => {
    const damaged = path.join(dir, 'damaged.db');
    copyFileSync(good, damaged);
    const db = new Database(damaged, { readonly: true });
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").get() as { rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (rootpage - 1) * pageSize);
    closeSync(fd);
    refused(['report', '--store', damaged, '--format', 'json'], new RegExp(`damaged\\.db is damaged[\\s\\S]*sqlite3 ${damaged.replace(/[.]/g, '\\.')} \\.recover`));
  });

  test('report and export on a 0-byte file leave it 0 bytes', () => {
    const empty = path.join(dir, 'empty.db');
    writeFileSync(empty, '');
    refused(['report', '--store', empty], /empty\.db is not an envproof results store/);
    refused(['export', '--store', empty], /empty\.db is not an envproof results store/);
    assert.equal(statSync(empty).size, 0);
  });

  test('report on a missing store creates nothing', () => {
    const missing = path.join(dir, 'missing', 'none.db');
    refused(['report', '--store', missing], /cannot open the results store/);
    assert.throws(() => statSync(path.dirname(missing)), { code: 'ENOENT' });
  });

  test('import into an immutable store (chattr +i: read-only even for root)', (t) => {
    const locked = path.join(dir, 'locked.db');
    copyFileSync(good, locked);
    execFileSync('chattr', ['+i', locked]);
    t.after(() => execFileSync('chattr', ['-i', locked]));
    refused(['import', 'envgap-csv', HANDMADE, '--store', locked], /locked\.db is read-only/);
  });

  test('import into a store on a read-only mount', () => {
    const ro = path.join(dir, 'ro');
    mkdirSync(ro);
    copyFileSync(good, path.join(ro, 'results.db'));
    const cli = cliCommand('import', 'envgap-csv', HANDMADE, '--store', path.join(ro, 'results.db')).map((a) => `'${a}'`).join(' ');
    const script = `mount --bind '${ro}' '${ro}' && mount -o remount,bind,ro '${ro}' && touch '${ro}/probe' 2>/dev/null && echo writable; ${cli}`;
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script], { encoding: 'utf8' });
    assert.doesNotMatch(r.stdout, /writable/, 'the mount must really be read-only');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /results\.db is read-only/);
    assert.doesNotMatch(r.stderr, /internal error/);
  });
});
