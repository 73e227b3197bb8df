// tier: quick
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { prepareWritableDirs } from '../../src/sandbox/environment.js';
import { SANDBOX_UID } from '../../src/sandbox/uid.js';

describe('handing the work directory to the sandbox user', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'handover-'));
  after(() => {
    spawnSync('chattr', ['-R', '-i', root]);
    rmSync(root, { recursive: true, force: true });
  });

  test('every file and directory, never the target of a symlink', async () => {
    assert.equal(process.getuid?.(), 0, 'the handover changes owners: the tests run as root');
    const work = path.join(root, 'tree');
    mkdirSync(path.join(work, 'project', 'pkg'), { recursive: true });
    writeFileSync(path.join(work, 'project', 'pkg', 'mod.py'), 'x = 1\n');
    const outside = path.join(root, 'outside.txt');
    writeFileSync(outside, 'root keeps this\n');
    symlinkSync(outside, path.join(work, 'project', 'link'));
    await prepareWritableDirs(work, SANDBOX_UID);
    for (const p of ['', 'home', 'project', 'project/pkg', 'project/pkg/mod.py', 'project/link']) {
      assert.equal(lstatSync(path.join(work, p)).uid, SANDBOX_UID, p || work);
    }
    assert.equal(lstatSync(outside).uid, 0);
  });

  test('a file that cannot change owner: the error says which and why', async () => {
    const work = path.join(root, 'stuck');
    mkdirSync(work);
    const stuck = path.join(work, 'immutable.txt');
    writeFileSync(stuck, 'x\n');
    const r = spawnSync('chattr', ['+i', stuck], { encoding: 'utf8' });
    assert.equal(r.status, 0, `chattr +i: ${r.stderr}`);
    await assert.rejects(prepareWritableDirs(work, SANDBOX_UID), (err: Error) => {
      assert.match(err.message, new RegExp(`^cannot hand ${work} to the sandbox user: chown: .*immutable\\.txt.*Operation not permitted`));
      return true;
    });
  });
});
