// tier: quick
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { isQuick, longestFirst, QUICK_MARKER, quickFiles, testFiles } from './files.js';
import { countsOf, formatSeconds, skipLines, slowest } from './outcome.js';
import { readTimings, saveTimings } from './timings.js';
import { accountCpu } from './cpu.js';

describe('the test runner', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'envproof-runner-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('finds the test files, leaving out fixtures, and knows the quick ones by their first line', () => {
    const files: Record<string, string> = {
      'test/a/one.test.ts': `${QUICK_MARKER}\nimport x from 'y';\n`,
      'test/a/two.test.ts': `import x from 'y';\n${QUICK_MARKER}\n`,
      'test/b.test.ts': '',
      'test/a/fixtures/inner.test.ts': QUICK_MARKER,
      'test/a/helper.ts': QUICK_MARKER,
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    const found = testFiles(root);
    assert.deepEqual(found, ['test/a/one.test.ts', 'test/a/two.test.ts', 'test/b.test.ts']);
    assert.deepEqual(quickFiles(root, found), ['test/a/one.test.ts']);
    assert.equal(isQuick(`  ${QUICK_MARKER}  \n`), true);
  });

  it('starts the longest files first, and files never timed before all of them', () => {
    assert.deepEqual(longestFirst(['a', 'b', 'c', 'd'], { a: 5, b: 300, d: 40 }), ['c', 'b', 'd', 'a']);
  });

  it('reads the counts of the spec reporter’s summary, and the skipped tests’ lines', () => {
    const output = [
      '▶ suite',
      '  ✔ works (1.2ms)',
      '  ﹣ needs podman (0.1ms) # needs podman is missing',
      'ℹ tests 2',
      'ℹ suites 1',
      'ℹ pass 1',
      'ℹ fail 0',
      'ℹ cancelled 0',
      'ℹ skipped 1',
      'ℹ todo 0',
      'ℹ duration_ms 12.5',
    ].join('\n');
    assert.deepEqual(countsOf(output), { tests: 2, pass: 1, fail: 0, cancelled: 0, skipped: 1, todo: 0 });
    assert.equal(countsOf('✖ crashed before its summary'), undefined);
    assert.deepEqual(skipLines(output), ['﹣ needs podman (0.1ms) # needs podman is missing']);
  });

  it('prints times and the slowest files', () => {
    assert.equal(formatSeconds(12_340), '12.3 s');
    assert.equal(formatSeconds(125_000), '2 min 05 s');
    assert.deepEqual(slowest({ 'test/a.test.ts': 1500, 'test/b.test.ts': 300_000, 'test/c.test.ts': 20_000 }, 2), [
      '   300.0 s  test/b.test.ts',
      '    20.0 s  test/c.test.ts',
    ]);
    assert.deepEqual(slowest({ 'test/a.test.ts': 1500, 'test/b.test.ts': 300_000 }, 2, { 'test/b.test.ts': 401.04 }), [
      '   300.0 s   401.0 s CPU  test/b.test.ts',
      '     1.5 s       —        test/a.test.ts',
    ]);
  });

  it('counts the CPU time of a file\'s whole process tree, its grandchildren included', { skip: process.getuid?.() !== 0 && 'control groups need root' }, async () => {
    // The shell waits before starting its child, so the group holds it first; the grandchild burns about 0.4 s of CPU.
    const burn = `const end = process.cpuUsage().user + 400_000; while (process.cpuUsage().user < end);`;
    const child = spawn('sh', ['-c', `sleep 0.3; ${JSON.stringify(process.execPath)} -e ${JSON.stringify(burn)}`], { stdio: 'ignore' });
    const group = accountCpu(child.pid);
    assert.ok(group, 'no control group with CPU accounting could be made');
    await once(child, 'close');
    const seconds = group.seconds();
    group.remove();
    assert.ok(seconds !== undefined && seconds >= 0.4 && seconds < 5, `counted ${seconds} s`);
  });

  it('keeps the times of files a run did not take, and seeds a clone only when asked', () => {
    saveTimings(root, { 'test/a.test.ts': 10.04, 'test/b.test.ts': 3 }, false);
    saveTimings(root, { 'test/b.test.ts': 7.26 }, false);
    assert.deepEqual(readTimings(root), { 'test/a.test.ts': 10, 'test/b.test.ts': 7.3 });
    saveTimings(root, {}, true);
    rmSync(path.join(root, 'node_modules'), { recursive: true });
    assert.deepEqual(readTimings(root), { 'test/a.test.ts': 10, 'test/b.test.ts': 7 });
  });
});
