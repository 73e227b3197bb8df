import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCliAsync } from '../helpers/cli.js';
import { skipMissing } from '../helpers/requires.js';
import { buildEnvironment, isolatingBackends } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

interface AuditJson {
  sandbox: { backend: string; warning?: string };
  layers: Record<'declared' | 'installed' | 'traced', { name: string }[]>;
  run: { success: boolean };
}

function audit(fixture: string, sandbox: string, ...more: string[]) {
  return runCliAsync(['audit', path.join(FIXTURES, fixture), '--json', '--sandbox', sandbox, ...more]);
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

  const used = backends.filter((b) => !b.skip).map((b) => b.backend);

  /** The fixture audited under host and under each isolating backend (in that order), all at once: each waits mostly on its install. */
  const underEach = (fixture: string, ...more: string[]) => Promise.all(['host', ...used].map((backend) => audit(fixture, backend, ...more)));

  async function sameLayers(fixture: string, expected: Record<string, string[]>) {
    const [host, ...isolated] = await underEach(fixture);
    assert.deepEqual(layers(host!), expected, host!.stderr);
    for (const [i, backend] of used.entries()) {
      const r = isolated[i]!;
      assert.deepEqual(layers(r), expected, `${backend}: ${r.stderr}`);
      const report = JSON.parse(r.stdout) as AuditJson;
      assert.equal(report.sandbox.backend, backend);
      assert.equal(report.sandbox.warning, undefined);
    }
    return host!;
  }

  it('python: the same three layers', async () => {
    // By hand: both requirements are installed (no dependencies of their own); only yaml is imported.
    const host = await sameLayers('py-app', { declared: ['pyyaml', 'tabulate'], installed: ['pyyaml', 'tabulate'], traced: ['pyyaml'] });
    assert.match((JSON.parse(host.stdout) as AuditJson).sandbox.warning ?? '', /not isolated/);
  });

  it('javascript: the same three layers', async () => {
    // By hand: is-odd@3.0.1 depends on is-number ^6.0.0, and requiring is-odd loads is-number.
    await sameLayers('js-app', { declared: ['is-odd'], installed: ['is-number', 'is-odd'], traced: ['is-number', 'is-odd'] });
  });

  it('java: the same three layers', async () => {
    // By hand: gson 2.10.1 declares no dependencies of its own, and Main uses it.
    await sameLayers('java-app', { declared: ['gson'], installed: ['gson'], traced: ['gson'] });
  });

  it('c++: the same three layers, libz.so.1 found through its symlink in each file system', async () => {
    // By hand: zlib1g-dev is in every environment; the program loads libz.so.1 (a link to libz.so.1.2.13).
    await sameLayers('cpp-zlib', { declared: ['zlib'], installed: ['zlib'], traced: ['zlib'] });
  });

  it('c++: a library the developer machine has but the clean environment lacks builds on host and fails in the sandboxes', async (t) => {
    const [host, ...isolated] = await underEach('cpp-json');
    if (host!.status === 2 && /nlohmann_json/.test(host!.stderr)) return skipMissing(t, 'nlohmann-json3-dev on the host', 'scripts/setup.sh installs it');
    assert.equal((JSON.parse(host!.stdout) as AuditJson).run.success, true, host!.stderr);
    for (const [i, backend] of used.entries()) {
      const r = isolated[i]!;
      assert.equal(r.status, 2, `${backend}: ${r.stderr}`);
      assert.match(r.stderr, /nlohmann_json/);
    }
  });

  it('podman: the paper\'s ubuntu base needs a registry, and the error says so', { skip: podman.skip }, async () => {
    const [r, bwrap] = await Promise.all([audit('py-app', 'podman', '--image-base', 'ubuntu'), audit('py-app', 'bwrap', '--image-base', 'ubuntu')]);
    if (r.status === 2) {
      assert.match(r.stderr, /--image-base ubuntu needs the image docker\.io\/library\/ubuntu:22\.04 from a registry, and it cannot be had here/);
      assert.match(r.stderr, /hint: use --image-base debian/);
    } else {
      // Where a registry is reachable the image is built and the audit runs on it.
      assert.deepEqual(layers(r).installed, ['pyyaml', 'tabulate'], r.stderr);
    }
    assert.equal(bwrap.status, 2);
    assert.match(bwrap.stderr, /--image-base ubuntu needs --sandbox podman or docker/);
  });
});
