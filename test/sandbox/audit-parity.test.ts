import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { skipMissing } from '../helpers/requires.js';
import { buildEnvironment } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

interface AuditJson {
  sandbox: { backend: string; warning?: string };
  layers: Record<'declared' | 'installed' | 'traced', { name: string }[]>;
  run: { success: boolean };
}

function audit(fixture: string, sandbox: 'host' | 'bwrap') {
  return runCli(['audit', path.join(FIXTURES, fixture), '--json', '--sandbox', sandbox], { timeoutMs: 20 * 60_000 });
}

function layers(stdout: string): Record<string, string[]> {
  const report = JSON.parse(stdout) as AuditJson;
  return Object.fromEntries(Object.entries(report.layers).map(([k, deps]) => [k, deps.map((d) => d.name).sort()]));
}

/** The same audit under host and under bwrap: equal layers where the clean environment has what is needed. */
describe('audits under bwrap and under host', () => {
  before(() => {
    for (const language of ['python', 'javascript', 'java', 'cpp']) buildEnvironment(language);
  });

  it('python: the same three layers', () => {
    // By hand: both requirements are installed (no dependencies of their own); only yaml is imported.
    const expected = { declared: ['pyyaml', 'tabulate'], installed: ['pyyaml', 'tabulate'], traced: ['pyyaml'] };
    const host = audit('py-app', 'host');
    const bwrap = audit('py-app', 'bwrap');
    assert.deepEqual(layers(host.stdout), expected, host.stderr);
    assert.deepEqual(layers(bwrap.stdout), expected, bwrap.stderr);
    assert.equal((JSON.parse(bwrap.stdout) as AuditJson).sandbox.backend, 'bwrap');
    assert.equal((JSON.parse(bwrap.stdout) as AuditJson).sandbox.warning, undefined);
    assert.match((JSON.parse(host.stdout) as AuditJson).sandbox.warning ?? '', /not isolated/);
  });

  it('javascript: the same three layers', () => {
    // By hand: is-odd@3.0.1 depends on is-number ^6.0.0, and requiring is-odd loads is-number.
    const expected = { declared: ['is-odd'], installed: ['is-number', 'is-odd'], traced: ['is-number', 'is-odd'] };
    const host = audit('js-app', 'host');
    const bwrap = audit('js-app', 'bwrap');
    assert.deepEqual(layers(host.stdout), expected, host.stderr);
    assert.deepEqual(layers(bwrap.stdout), expected, bwrap.stderr);
  });

  it('java: the same three layers', () => {
    // By hand: gson 2.10.1 declares no dependencies of its own, and Main uses it.
    const expected = { declared: ['gson'], installed: ['gson'], traced: ['gson'] };
    const host = audit('java-app', 'host');
    const bwrap = audit('java-app', 'bwrap');
    assert.deepEqual(layers(host.stdout), expected, host.stderr);
    assert.deepEqual(layers(bwrap.stdout), expected, bwrap.stderr);
  });

  it('c++: a library the developer machine has but the clean environment lacks builds on host and fails under bwrap', (t) => {
    const host = audit('cpp-json', 'host');
    if (host.status === 2 && /nlohmann_json/.test(host.stderr)) return skipMissing(t, 'nlohmann-json3-dev on the host', 'scripts/setup.sh installs it');
    assert.equal((JSON.parse(host.stdout) as AuditJson).run.success, true, host.stderr);
    const bwrap = audit('cpp-json', 'bwrap');
    assert.equal(bwrap.status, 2);
    assert.match(bwrap.stderr, /nlohmann_json/);
  });
});
