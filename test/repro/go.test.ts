import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCause, reproFixture, settingOf } from './helpers.js';

// Go runs in the Go environment (the audit's toolchain and module cache), in the bwrap sandbox like the others.
// The timezone fixture is attributed in cli.test.ts (the JSON report).
describe('repro: Go fixtures (go test -json), one per cause', () => {
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
    const r = await reproFixture('go-clock', 'go test ./...', ['clock']);
    const clock = settingOf(r, 'rerun', 'clock');
    assert.equal(clock?.applied, false);
    assert.match(clock?.note ?? '', /vDSO/);
    // The shift never took effect, so nothing varied: the re-run reproduces, and the clock is no cause.
    assert.equal(r.verdict, 'reproducible');
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
