// tier: quick
/**
 * envproof writes as root into directories others may have planted links in: a project (fix edits its manifest)
 * and output paths (report --out, SBOM, SARIF, export --out). Real symbolic links; the file they point at must
 * stay untouched.
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { writeOutputFile, writeProjectFile } from '../../src/core/safe-write.js';
import { restoreTree, snapshotTree } from '../../src/protocol/tree.js';
import { ResultsStore } from '../../src/store/store.js';
import { runCli } from '../helpers/cli.js';

const base = mkdtempSync(path.join(tmpdir(), 'envproof-writes-'));
const hostFile = path.join(base, 'host', 'passwd');
mkdirSync(path.dirname(hostFile));
after(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
function dir(): string {
  const d = path.join(base, `d${++n}`);
  mkdirSync(d);
  writeFileSync(hostFile, 'host file, untouched\n');
  return d;
}

describe('writeProjectFile (fix)', () => {
  test('a link planted at the old temporary name does not redirect the write', async () => {
    const project = dir();
    writeFileSync(path.join(project, 'package.json'), '{}\n');
    // Before, fix wrote `<manifest>.envproof-fix` with writeFile: through this link, into the host file.
    symlinkSync(hostFile, path.join(project, 'package.json.envproof-fix'));
    await writeProjectFile(project, 'package.json', '{"dependencies":{}}\n');
    assert.equal(readFileSync(hostFile, 'utf8'), 'host file, untouched\n');
    assert.equal(readFileSync(path.join(project, 'package.json'), 'utf8'), '{"dependencies":{}}\n');
    assert.ok(lstatSync(path.join(project, 'package.json')).isFile());
    assert.deepEqual(readdirSync(project).sort(), ['package.json', 'package.json.envproof-fix'], 'no temporary file is left');
  });

  test('a manifest that is a link out of the project is refused and the host file stays', async () => {
    const project = dir();
    symlinkSync(hostFile, path.join(project, 'requirements.txt'));
    await assert.rejects(writeProjectFile(project, 'requirements.txt', 'six\n'), /requirements\.txt is a symbolic link out of the project/);
    assert.equal(readFileSync(hostFile, 'utf8'), 'host file, untouched\n');
    assert.ok(lstatSync(path.join(project, 'requirements.txt')).isSymbolicLink());
  });

  test('a manifest in a directory that is a link out of the project is refused', async () => {
    const project = dir();
    symlinkSync(path.dirname(hostFile), path.join(project, 'sub'));
    await assert.rejects(writeProjectFile(project, 'sub/go.mod', 'module x\n'), /sub is a symbolic link out of the project/);
    assert.deepEqual(readdirSync(path.dirname(hostFile)), ['passwd']);
  });

  test('a link to a file inside the project is written at its real place, the link kept, the mode kept', async () => {
    const project = dir();
    writeFileSync(path.join(project, 'real.txt'), 'old\n');
    chmodSync(path.join(project, 'real.txt'), 0o640);
    symlinkSync('real.txt', path.join(project, 'requirements.txt'));
    await writeProjectFile(project, 'requirements.txt', 'new\n');
    assert.equal(readFileSync(path.join(project, 'real.txt'), 'utf8'), 'new\n');
    assert.ok(lstatSync(path.join(project, 'requirements.txt')).isSymbolicLink());
    assert.equal(statSync(path.join(project, 'real.txt')).mode & 0o777, 0o640);
  });
});

describe('writeOutputFile (--out)', () => {
  test('a dangling link planted at the output path is refused, nothing is created where it points', async () => {
    const out = dir();
    const target = path.join(path.dirname(hostFile), 'created-by-envproof');
    symlinkSync(target, path.join(out, 'sbom.json'));
    await assert.rejects(writeOutputFile(path.join(out, 'sbom.json'), '{}'), /sbom\.json is a symbolic link; envproof does not write through links/);
    assert.throws(() => lstatSync(target), { code: 'ENOENT' });
  });

  test('export --out onto a link to a host file: exit 2, the host file untouched', async () => {
    const out = dir();
    const storeFile = path.join(out, 'results.db');
    await (await ResultsStore.open(storeFile)).close();
    symlinkSync(hostFile, path.join(out, 'export.json'));
    const r = runCli(['export', '--store', storeFile, '--out', path.join(out, 'export.json')]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /export\.json is a symbolic link/);
    assert.equal(readFileSync(hostFile, 'utf8'), 'host file, untouched\n');
  });

  test('a plain output path is written, replacing an older file', async () => {
    const out = dir();
    writeFileSync(path.join(out, 'report.md'), 'old');
    await writeOutputFile(path.join(out, 'report.md'), 'new');
    assert.equal(readFileSync(path.join(out, 'report.md'), 'utf8'), 'new');
    assert.deepEqual(readdirSync(out), ['report.md']);
  });
});

describe('restoreTree (a stored project tree written back)', () => {
  test('a tree with a link, a nested file and an executable comes back the same', async () => {
    const from = dir();
    mkdirSync(path.join(from, 'src'));
    writeFileSync(path.join(from, 'src', 'app.py'), 'print(1)\n');
    writeFileSync(path.join(from, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('src/app.py', path.join(from, 'main.py'));
    const snap = await snapshotTree(from);
    const to = dir();
    await restoreTree(to, snap.entries, (h) => snap.blobs.get(h)!);
    assert.equal((await snapshotTree(to)).hash, snap.hash);
  });

  test('an entry that would write through a link an earlier entry made is refused; nothing is written outside', async () => {
    const to = dir();
    const outside = path.dirname(hostFile);
    const entries = [
      { path: 'a', kind: 'symlink' as const, executable: false, blob: 'link' },
      { path: 'a/passwd', kind: 'file' as const, executable: false, blob: 'data' },
      { path: 'a/new/x', kind: 'file' as const, executable: false, blob: 'data' },
    ];
    const blobs: Record<string, Buffer> = { link: Buffer.from(outside), data: Buffer.from('owned\n') };
    await assert.rejects(restoreTree(to, entries.slice(0, 2), (h) => blobs[h]!), /a is a symbolic link out of the project/);
    await assert.rejects(restoreTree(to, [entries[0]!, entries[2]!], (h) => blobs[h]!), /a is a symbolic link out of the project/);
    assert.equal(readFileSync(hostFile, 'utf8'), 'host file, untouched\n');
    assert.deepEqual(readdirSync(outside), ['passwd']);
  });
});
