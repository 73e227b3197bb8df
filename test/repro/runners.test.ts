import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCause, reproFixture, settingOf } from './helpers.js';

// The runners the Python, JavaScript and Go fixtures do not cover, end to end in the bwrap sandbox: one cause each.
describe('repro: Maven Surefire, ctest and Vitest fixtures', () => {
  test('Maven Surefire: a JUnit test that assumes the machine runs in UTC', async () => {
    const r = await reproFixture('java-timezone', 'mvn -q test', ['timezone']);
    assert.deepEqual(r.reference.outcome.tests, { 'demo.ReportTest::reportHour': 'passed', 'demo.ReportTest::label': 'passed' });
    assertCause(r, 'timezone', 'implicit-environment', 'demo.ReportTest::reportHour: passed → failed');
  });

  test('ctest: a test that formats in the user\'s locale', async () => {
    const r = await reproFixture('cpp-locale', 'cmake -S . -B build && cmake --build build && cd build && ctest', ['locale']);
    assert.equal(r.reference.outcome.runner, 'ctest');
    assert.deepEqual(Object.values(r.reference.outcome.tests ?? {}), ['passed', 'passed']);
    assertCause(r, 'locale', 'implicit-environment', /amount_in_user_locale: passed → failed/);
    // The classic-locale test is no victim of the locale.
    assert.doesNotMatch(r.causes![0]!.evidence, /amount_in_classic_locale/);
    // de_DE.UTF-8 was compiled in the run: std::locale("") formatted in it rather than throwing.
    assert.equal(settingOf(r, 'rerun', 'locale')?.applied, true);
  });

  test('Vitest: order-dependent tests, shuffled by --sequence.shuffle with a printed seed', async () => {
    const r = await reproFixture('vitest-order', 'npm test', ['test-order']);
    assert.equal(r.reference.outcome.runner, 'vitest');
    assert.deepEqual(Object.values(r.reference.outcome.tests ?? {}), Array(6).fill('passed'));
    assertCause(r, 'test-order', 'test-order', /seed 1000 \(vitest --sequence\.shuffle\).*test\/cart\.test\.js › .*: passed → failed/);
    assert.equal(settingOf(r, 'control', 'test-order')?.value, 'the runner\'s own order');
  });
});
