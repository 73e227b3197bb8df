import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { skipMissing } from '../helpers/requires.js';
import { buildEnvironment, isolatingBackends } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

interface AuditJson {
  sandbox: { backend: string; warning?: string };
  layers: Record<'declared' | 'installed' | 'traced', { name: string }[]>;
  run: { success: boolean };
}

function audit(fixture: string, sandbox: string, ...more: string[]) {
  return runCli(['audit', path.join(FIXTURES, fixture), '--json', '--sandbox', sandbox, ...more], { timeoutMs: 20 * 60_000 });
}

function layers(r: { stdout: string; stderr: string }): Record<string, string[]> {
  let report: AuditJson;
  try {
    report = JSON.parse(r.stdout) as AuditJson;
  } catch {
    throw new Error(`no audit report:\n${r.stderr}`);
  }
  return Object.fromEntries(Object.entries(report.layers).map(([k, deps]) => [k, deps.map((d) => d.name).sort()]));
}

const LANGUAGES = ['python', 'javascript', 'java', 'cpp'];

/**
 * The same audit under host, bwrap and podman: equal layers where the clean environment has what is needed,
 * and the same failure where it does not. The expected layers are the ones worked out by hand.
 */
describe('audits under host, bwrap and podman', () => {
  const backends = isolatingBackends();
  const podman = backends.find((b) => b.backend === 'podman')!;
  before(() => {
    for (const { backend, skip } of backends) if (!skip) for (const language of LANGUAGES) buildEnvironment(language, backend);
  });

  function sameLayers(fixture: string, expected: Record<string, string[]>) {
    const host = audit(fixture, 'host');
    assert.deepEqual(layers(host), expected, host.stderr);
    for (const { backend, skip } of backends) {
      if (skip) continue;
      const r = audit(fixture, backend);
      assert.deepEqual(layers(r), expected, `${backend}: ${r.stderr}`);
      const report = JSON.parse(r.stdout) as AuditJson;
      assert.equal(report.sandbox.backend, backend);
      assert.equal(report.sandbox.warning, undefined);
    }
    return host;
  }

  it('python: the same three layers', () => {
    // By hand: both requirements are installed (no dependencies of their own); only yaml is imported.
    const host = sameLayers('py-app', { declared: ['pyyaml', 'tabulate'], installed: ['pyyaml', 'tabulate'], traced: ['pyyaml'] });
    assert.match((JSON.parse(host.stdout) as AuditJson).sandbox.warning ?? '', /not isolated/);
  });

  it('javascript: the same three layers', () => {
    // By hand: is-odd@3.0.1 depends on is-number ^6.0.0, and requiring is-odd loads is-number.
    sameLayers('js-app', { declared: ['is-odd'], installed: ['is-number', 'is-odd'], traced: ['is-number', 'is-odd'] });
  });

  it('java: the same three layers', () => {
    // By hand: gson 2.10.1 declares no dependencies of its own, and Main uses it.
    sameLayers('java-app', { declared: ['gson'], installed: ['gson'], traced: ['gson'] });
  });

  it('c++: the same three layers, libz.so.1 found through its symlink in each file system', () => {
    // By hand: zlib1g-dev is in every environment; the program loads libz.so.1 (a link to libz.so.1.2.13).
    sameLayers('cpp-zlib', { declared: ['zlib'], installed: ['zlib'], traced: ['zlib'] });
  });

  it('c++: a library the developer machine has but the clean environment lacks builds on host and fails in the sandboxes', (t) => {
    const host = audit('cpp-json', 'host');
    if (host.status === 2 && /nlohmann_json/.test(host.stderr)) return skipMissing(t, 'nlohmann-json3-dev on the host', 'scripts/setup.sh installs it');
    assert.equal((JSON.parse(host.stdout) as AuditJson).run.success, true, host.stderr);
    for (const { backend, skip } of backends) {
      if (skip) continue;
      const r = audit('cpp-json', backend);
      assert.equal(r.status, 2, `${backend}: ${r.stderr}`);
      assert.match(r.stderr, /nlohmann_json/);
    }
  });

  it('podman: the paper\'s ubuntu base needs a registry, and the error says so', { skip: podman.skip }, () => {
    const r = audit('py-app', 'podman', '--image-base', 'ubuntu');
    if (r.status === 2) {
      assert.match(r.stderr, /--image-base ubuntu needs the image docker\.io\/library\/ubuntu:22\.04 from a registry, and it cannot be had here/);
      assert.match(r.stderr, /hint: use --image-base debian/);
    } else {
      // Where a registry is reachable the image is built and the audit runs on it.
      assert.deepEqual(layers(r).installed, ['pyyaml', 'tabulate'], r.stderr);
    }
    const bwrap = audit('py-app', 'bwrap', '--image-base', 'ubuntu');
    assert.equal(bwrap.status, 2);
    assert.match(bwrap.stderr, /--image-base ubuntu needs --sandbox podman or docker/);
  });
});
