import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertCause, reproFixture, settingOf } from './helpers.js';

// Go runs in the Go environment (the audit's toolchain and module cache), in the bwrap sandbox like the others.
// The timezone fixture is attributed in cli.test.ts (the JSON report).
describe('repro: Go fixtures (go test -json), one per cause', () => {
  test('a reference recorded at UTC+8: the control replays its TZ, so the timezone is the cause, not unknown', async () => {
    // The reference's outcome by another route: at UTC+8 the hour of 1700000000 is 22 + 8 − 24 = 6, not the 22 the test wants.
    assert.equal(new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Shanghai', hour: 'numeric', hourCycle: 'h23' }).format(1700000000 * 1000), '06');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'repro-ref-tz-')), 'reference.json');
    const id = 'example.com/go-timezone.TestReportHour';
    writeFileSync(file, JSON.stringify({ recordedAt: '2026-11-01T00:00:00Z', outcome: { status: 'fail', tests: { [id]: 'failed' } }, environment: { timezone: 'Asia/Shanghai' } }));
    // Nothing varied: the re-run differs from the reference only by the default environment's TZ=UTC.
    const r = await reproFixture('go-timezone', 'go test ./...', [], { referenceFile: file, shim: true });
    assert.deepEqual([r.reference.environment, r.runs[0]!.outcome.tests], [{ timezone: 'Asia/Shanghai' }, { [id]: 'passed' }]);
    assertCause(r, 'timezone', 'implicit-environment', `TZ=UTC: status fail → pass; ${id}: failed → passed`);
    assert.deepEqual([settingOf(r, 'control', 'timezone')?.value, r.attributionRuns![0]!.matches], ['TZ=Asia/Shanghai', true]);
    assert.deepEqual([r.shim!.verdict, r.shim!.runs[0]!.variation.find((s) => s.factor === 'timezone')?.value], ['reproducible', 'TZ=Asia/Shanghai']);
  });

  test('locale', async () => {
    assertCause(await reproFixture('go-locale', 'go test ./...', ['locale']), 'locale', 'implicit-environment', 'TestAmount: passed → failed');
  });

  test('order-dependent tests, go test -shuffle with a printed seed', async () => {
    assertCause(await reproFixture('go-order', 'go test ./...', ['test-order']), 'test-order', 'test-order', /seed 1000/);
  });

  test('a test that needs the network', async () => {
    assertCause(await reproFixture('go-network', 'go test ./...', ['network']), 'network', 'network', 'TestProxyReachable: failed → passed');
  });

  test('PATH-dependent tool lookup', async () => {
    assertCause(await reproFixture('go-path', 'go test ./...', ['path']), 'path', 'implicit-environment', 'TestCompilerFromTheSystem: passed → failed');
  });

  test('a date-dependent test: libfaketime cannot shift Go\'s clock, and the report says so', async () => {
    const r = await reproFixture('go-clock', 'go test ./...', ['clock'], { shim: true });
    const clock = settingOf(r, 'rerun', 'clock');
    assert.equal(clock?.applied, false);
    assert.match(clock?.note ?? '', /vDSO/);
    // The shift never took effect, so nothing varied: the re-run reproduces, and the clock is no cause.
    assert.equal(r.verdict, 'reproducible');
    // Pinned at the reference's date (now), the clock reads the same whether pinned or not: the probe's own pin, far from now, shows it was not.
    const pinned = r.shim!.runs[0]!.variation.find((s) => s.factor === 'clock');
    assert.deepEqual([pinned?.mode, pinned?.applied], ['pinned', false]);
    assert.match(pinned?.note ?? '', /a probe pinned at 2001-09-09T01:46:40\.000Z read 20\d\d-.*vDSO/);
    assert.ok(r.shim!.pins.some((p) => p.startsWith('clock: not pinned')), r.shim!.pins.join('; '));
  });

  test('dependency drift: Go resolves the same on any date, and the report says why', async () => {
    const r = await reproFixture('go-clean', 'go test ./...', ['dependency-drift', 'umask', 'home'], { shim: true });
    assert.equal(r.verdict, 'reproducible');
    assert.deepEqual(r.runs[1]!.outcome.tests, { 'example.com/go-clean.TestSlug': 'passed', 'example.com/go-clean.TestEmpty': 'passed' });
    const drift = r.shim!.runs[0]!.variation.find((s) => s.factor === 'dependency-drift');
    assert.equal(drift?.applied, false);
    assert.match(drift?.note ?? '', /minimal version selection/);
  });
});
