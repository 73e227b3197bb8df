// tier: quick
/**
 * C++ D3 counts only what the project's programs mapped: `--run "zjson && ls /"` runs the fixture's program and
 * then /bin/ls, which maps libselinux and libpcre2-8 (ldd says so, checked below). Those are loaded by a system
 * tool, not by the project: never in D3, never hidden, listed apart with the program that mapped them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../../helpers/cli.js';
import { runtimeLibraryName } from '../../../src/ecosystems/cpp/names.js';
import { FIXTURES } from './helpers.js';

/** The shared libraries ldd lists for a program, by the paper's library name (`libselinux.so.1` → `selinux`). */
function lddNames(program: string): string[] {
  const r = spawnSync('ldd', [program], { encoding: 'utf8' });
  return [...r.stdout.matchAll(/^\s*(lib[^\s]+\.so[^\s]*)/gm)].map((m) => runtimeLibraryName(m[1]!));
}

let root: string;
let report: any;
let text: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envproof-cpp-system-tools-'));
  const dir = path.join(root, 'zlib-json');
  await cp(path.join(FIXTURES, 'zlib-json'), dir, { recursive: true });
  const r = await runCliAsync(['audit', dir, '--run', 'zjson && ls /', '--json', '--sandbox', 'host', '-q']);
  report = JSON.parse(r.stdout);
  text = (await runCliAsync(['audit', dir, '--run', 'zjson && ls /', '--sandbox', 'host', '-q'])).stdout;
});
after(() => rm(root, { recursive: true, force: true }));

describe('C++ D3: libraries of base-system tools', () => {
  it('a library only /bin/ls mapped is listed apart, not in D3 and not hidden', () => {
    assert.equal(report.run.success, true, report.run.outputTail);
    const lsLibraries = lddNames('/bin/ls');
    assert.ok(lsLibraries.includes('selinux') && lsLibraries.includes('pcre2-8'), `ldd /bin/ls: ${lsLibraries.join(', ')}`);
    assert.deepEqual(report.layers.traced.map((d: any) => d.name), ['zlib']);
    assert.deepEqual(report.findings.filter((f: any) => f.kind === 'hidden').map((f: any) => f.name), []);
    const bySystemTools = report.loadedBySystemTools.map((l: any) => l.name).sort();
    assert.deepEqual(bySystemTools, ['pcre2-8', 'selinux']);
    for (const l of report.loadedBySystemTools) {
      assert.ok(lsLibraries.includes(l.name), l.name);
      assert.deepEqual(l.programs.map((p: string) => path.posix.basename(p)), ['ls']);
    }
    assert.match(text, /Loaded by system tools \(mapped only by programs that are not the project's; in no layer\)\n {2}pcre2-8 [^\n]* by \/(usr\/)?bin\/ls\n {2}selinux [^\n]* by \/(usr\/)?bin\/ls/);
  });
});
