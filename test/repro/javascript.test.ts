import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, test } from 'node:test';
import { assertCause, reproFixture, settingOf } from './helpers.js';
import { startLocalRegistry } from './npm-registry.js';

describe('repro: JavaScript fixtures, one per cause, each attributed', () => {
  test('timezone (node --test, results from its TAP reporter)', async () => {
    const r = await reproFixture('js-timezone', 'npm test', ['home', 'timezone']);
    assert.deepEqual(r.reference.outcome.tests, { 'report hour': 'passed' });
    assertCause(r, 'timezone', 'implicit-environment', 'report hour: passed → failed');
  });

  test('locale (Node formats numbers by LANG through ICU)', async () => {
    const r = await reproFixture('js-locale', 'node --test', ['locale']);
    assertCause(r, 'locale', 'implicit-environment', 'amount: passed → failed');
    assert.equal(settingOf(r, 'rerun', 'locale')?.applied, true);
  });

  test('cpus: os.cpus() counts the one CPU of the /proc/stat bound in the sandbox', async () => {
    assert.ok(availableParallelism() > 1, 'the variation shows one CPU of several: this test needs a machine with two or more');
    const r = await reproFixture('js-cpus', 'npm test', ['cpus']);
    assertCause(r, 'cpus', 'implicit-environment', 'runs in parallel: passed → failed');
    assert.match(settingOf(r, 'rerun', 'cpus')?.note ?? '', /^seen as 1 by os\.cpus\(\), os\.availableParallelism\(\)$/);
  });

  test('a test that fails after a date: the clock, shifted by libfaketime, checked', async () => {
    const r = await reproFixture('js-clock', 'npm test', ['clock']);
    assertCause(r, 'clock', 'time-date', 'licence valid: passed → failed');
    assert.equal(settingOf(r, 'rerun', 'clock')?.applied, true);
  });

  test('order-dependent tests, shuffled by jest --randomize with a printed seed', async () => {
    const r = await reproFixture('js-order', 'npx jest', ['test-order']);
    assert.equal(r.reference.outcome.runner, 'jest');
    assert.equal(Object.keys(r.reference.outcome.tests ?? {}).length, 4, JSON.stringify(r.reference.outcome));
    assertCause(r, 'test-order', 'test-order', /seed 1000/);
  });

  test('a test that needs the network', async () => {
    const r = await reproFixture('js-network', 'npm test', ['network']);
    assert.equal(r.reference.outcome.status, 'fail');
    assertCause(r, 'network', 'network', 'registry reachable: failed → passed');
  });

  test('a dependency range that resolves differently by date (npm --before, against a registry with real publish times)', async () => {
    const registry = await startLocalRegistry('drift-dep', { '1.0.0': '2021-01-01T00:00:00.000Z', '2.0.0': '2023-01-01T00:00:00.000Z' });
    const saved = process.env.ENVPROOF_REGISTRY_NPM;
    process.env.ENVPROOF_REGISTRY_NPM = registry.url;
    try {
      const r = await reproFixture('js-drift', 'npm test', ['dependency-drift'], { asOf: new Date('2022-01-01T00:00:00Z') });
      assert.equal(r.reference.outcome.status, 'pass', JSON.stringify(r.runs[0]));
      assertCause(r, 'dependency-drift', 'dependency-drift', 'drift-dep is the major version the code was written for: passed → failed');
    } finally {
      if (saved === undefined) delete process.env.ENVPROOF_REGISTRY_NPM;
      else process.env.ENVPROOF_REGISTRY_NPM = saved;
      await registry.close();
    }
  });

  test('PATH-dependent tool lookup', async () => {
    assertCause(await reproFixture('js-path', 'npm test', ['path']), 'path', 'implicit-environment', 'node on PATH is the running node: passed → failed');
  });

  test('a clean project reproduces under every variation at once', async () => {
    const r = await reproFixture('js-clean', 'npm test', ['timezone', 'locale', 'clock', 'path', 'home', 'umask', 'cpus', 'hash-seed', 'network', 'dependency-drift']);
    assert.equal(r.verdict, 'reproducible', JSON.stringify(r.runs, null, 1));
    assert.deepEqual(r.causes, []);
    assert.deepEqual(r.runs[1]!.outcome.tests, { slug: 'passed', empty: 'passed' });
  });
});
