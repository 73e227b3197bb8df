// tier: quick
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { InsideRealpath, withSymlinkTargets } from '../../src/trace/symlinks.js';
import { scratchDir } from './scenario.js';

/** A fake root filesystem on the host; `/hidden` inside it is not visible from the host. */
function fakeRoot(): { root: string; toHost: (p: string) => string | null } {
  const root = scratchDir();
  for (const dir of ['usr/bin', 'usr/lib/py', 'opt/v2', 'loop']) mkdirSync(path.join(root, dir), { recursive: true });
  writeFileSync(path.join(root, 'usr/bin/python3.11'), '');
  writeFileSync(path.join(root, 'usr/lib/py/mod.py'), '');
  writeFileSync(path.join(root, 'opt/v2/app.txt'), '');
  symlinkSync('python3.11', path.join(root, 'usr/bin/python3'));
  // Absolute inside the root filesystem: must resolve to <root>/opt/v2, never to the host's /opt/v2.
  symlinkSync('/opt/v2', path.join(root, 'opt/current'));
  symlinkSync('../usr/lib', path.join(root, 'opt/lib'));
  symlinkSync('b', path.join(root, 'loop/a'));
  symlinkSync('a', path.join(root, 'loop/b'));
  // Like a sandbox's private /tmp with the work directory bound below it: /hidden is invisible, /hidden/bound is not.
  mkdirSync(path.join(root, 'bound/real'), { recursive: true });
  writeFileSync(path.join(root, 'bound/real/w.txt'), '');
  symlinkSync('real', path.join(root, 'bound/alias'));
  const toHost = (p: string) =>
    p === '/hidden/bound' || p.startsWith('/hidden/bound/')
      ? path.join(root, 'bound', p.slice('/hidden/bound'.length))
      : p.startsWith('/hidden')
        ? null
        : path.join(root, p);
  return { root, toHost };
}

test('links resolve in the inside view, relative and absolute, through directories', () => {
  const { toHost } = fakeRoot();
  const realpath = new InsideRealpath(toHost);
  assert.equal(realpath.resolve('/usr/bin/python3'), '/usr/bin/python3.11');
  assert.equal(realpath.resolve('/opt/current/app.txt'), '/opt/v2/app.txt');
  assert.equal(realpath.resolve('/opt/lib/py/mod.py'), '/usr/lib/py/mod.py');
  assert.equal(realpath.resolve('/opt/current/deleted-since.txt'), '/opt/v2/deleted-since.txt');
  assert.equal(realpath.resolve('/usr/lib/py/mod.py'), '/usr/lib/py/mod.py');
  assert.equal(realpath.resolve('/hidden/x'), null);
  assert.equal(realpath.resolve('/hidden/bound/alias/w.txt'), '/hidden/bound/real/w.txt');
  // A link cycle ends (ELOOP in the kernel) instead of recursing forever.
  assert.equal(typeof realpath.resolve('/loop/a/x'), 'string');
});

test('withSymlinkTargets adds resolved targets and keeps invisible paths lexical only', () => {
  const { toHost } = fakeRoot();
  const files = withSymlinkTargets(['/usr/bin/python3', '/opt/current/app.txt', '/usr/lib/py/mod.py', '/hidden/x'], toHost);
  assert.deepEqual([...files].sort(), [
    '/hidden/x',
    '/opt/current/app.txt',
    '/opt/v2/app.txt',
    '/usr/bin/python3',
    '/usr/bin/python3.11',
    '/usr/lib/py/mod.py',
  ]);
});
