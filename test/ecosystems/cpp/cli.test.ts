// tier: quick
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { AuditReport } from '../../../src/audit/report.js';
import { renderAuditText } from '../../../src/report/audit-text.js';
import { runCli } from '../../helpers/cli.js';
import { FIXTURES, fixtureContext, localGitRepo, removeTempDirs } from './helpers.js';

describe('envproof audit on C++ projects: bad input', () => {
  it('a CMakeLists.txt with unbalanced parentheses: exit 2, the position, a hint, no stack trace', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'bad-parens'), '--sandbox', 'host', '-q']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /CMakeLists\.txt:3:1: unbalanced parentheses/);
    assert.match(r.stderr, /hint: /);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });

  it('a library that is not installed: exit 2, classified, with CMake\'s own words', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'missing-lib'), '--sandbox', 'host', '-q']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /missing-system-library/);
    assert.match(r.stderr, /Could NOT find CURL/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });
});

describe('envproof audit on C++: the paper-compatible D2 beside the configure-derived one', () => {
  after(() => removeTempDirs());

  it('D2 := D1 as the paper defines it, with its inflation, next to what CMake configure fetched', async () => {
    const shout = await localGitRepo('shout-lib', 'v0.1');
    const greet = await localGitRepo('greet-lib', 'v1.0', { SHOUT_REPO: shout });
    const banner = await localGitRepo('banner-lib', 'v2.0');
    const ctx = await fixtureContext('fetch', { GREET_REPO: greet, BANNER_REPO: banner });
    const r = runCli(['audit', ctx.projectDir, '--sandbox', 'host', '--json', '-q', '--fail-on', 'run']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as AuditReport;
    const names = (l: { name: string }[]) => l.map((d) => d.name);
    // Declared: greet and banner; configure also fetched greet's own dependency, shout.
    assert.deepEqual(names(report.layers.declared), ['banner', 'greet']);
    assert.deepEqual(names(report.layers.installed), ['banner', 'greet', 'shout']);
    assert.equal(report.metrics.inflation, 1.5);
    assert.deepEqual(names(report.paperCompatible!.installed), ['banner', 'greet']);
    assert.equal(report.paperCompatible!.metrics.inflation, 1);
    assert.deepEqual(report.paperCompatible!.gaps.transitive, []);
    assert.match(renderAuditText(report), /paper-compatible \(D2 := D1, as the paper defines it for C\+\+\): inflation 1\.00/);
  });
});
