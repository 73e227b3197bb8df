import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { AuditReport } from '../../src/audit/report.js';
import { renderAuditText } from '../../src/report/audit-text.js';
import { rootfsDir } from '../../src/sandbox/rootfs.js';
import { runCli } from '../helpers/cli.js';
import { buildEnvironment } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const SCRIPT = path.join(FIXTURES, '..', '..', 'protocol', 'fixtures', 'never-converges.yaml');

/** The version dpkg recorded for `pkg` in a root filesystem, read from its status file (not through envproof). */
function dpkgVersion(rootfs: string, pkg: string): string | undefined {
  const status = readFileSync(path.join(rootfs, 'var/lib/dpkg/status'), 'utf8');
  const stanza = status.split('\n\n').find((s) => s.startsWith(`Package: ${pkg}\n`));
  return /^Version: (.+)$/m.exec(stanza ?? '')?.[1];
}

describe('--system-packages: a derived environment', () => {
  before(() => buildEnvironment('cpp'));

  it('lets a C++ project that needs a library the clean environment lacks build, and reports the package as a system dependency', () => {
    // Without the package the header-only nlohmann_json is missing, and the hint names the option that adds it.
    const clean = runCli(['audit', path.join(FIXTURES, 'cpp-json'), '--sandbox', 'bwrap', '-q']);
    assert.equal(clean.status, 2, clean.stderr);
    assert.match(clean.stderr, /hint: the Debian package nlohmann-json3-dev provides nlohmann_json: add it to the clean environment with --system-packages nlohmann-json3-dev/);
    const r = runCli(['audit', path.join(FIXTURES, 'cpp-json'), '--json', '--sandbox', 'bwrap', '--system-packages', 'nlohmann-json3-dev'], { timeoutMs: 20 * 60_000 });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    const report = JSON.parse(r.stdout) as AuditReport;
    assert.equal(report.run.success, true, r.stderr);
    const version = dpkgVersion(rootfsDir('cpp', ['nlohmann-json3-dev']), 'nlohmann-json3-dev');
    assert.match(version ?? '', /^3\./, 'the derived root filesystem has the package');
    assert.equal(dpkgVersion(rootfsDir('cpp'), 'nlohmann-json3-dev'), undefined, 'the clean environment stays without it');
    assert.deepEqual(report.systemDependencies, [{ name: 'nlohmann-json3-dev', version }]);
    assert.deepEqual(report.layers.installed.map((d) => d.name), ['nlohmann-json']);
    assert.deepEqual(report.alternatives.buildTime?.map((d) => d.name), ['nlohmann-json'], 'the header is compiled in');
    assert.match(renderAuditText(report), new RegExp(`System dependencies.*\\n  nlohmann-json3-dev ${version!.replaceAll('.', '\\.')}\\n`));

    // Built once: asking again reuses it.
    const again = runCli(['env', 'build', 'cpp', '--system-packages', 'nlohmann-json3-dev']);
    assert.equal(again.status, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /installing/);
    assert.match(again.stdout, /cpp with nlohmann-json3-dev: ready at .*cpp\+[0-9a-f]{10}/);
  });

  it('refuses a package Debian does not have, with exit 2 and the name', () => {
    buildEnvironment('python');
    const r = runCli(['env', 'build', 'python', '--system-packages', 'envproof-no-such-package']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /no installable package envproof-no-such-package \(--system-packages\)/);
    assert.match(r.stderr, /apt-cache search/);
    // The half-built tree (the python environment copied, apt run in it) is removed, not left in the cache.
    const env = rootfsDir('python', ['envproof-no-such-package']);
    const halfBuilt = path.join(path.dirname(env), `.${path.basename(env)}.building`);
    assert.equal(existsSync(halfBuilt), false, `${halfBuilt} was left behind`);
    assert.equal(existsSync(env), false);
  });

  it('refuses names that are not Debian package names before building anything', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'py-app'), '--sandbox', 'bwrap', '--system-packages', 'libfoo-dev,$(touch /tmp/x)']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /not a Debian package name: "\$\(touch \/tmp\/x\)"/);
    assert.doesNotMatch(r.stderr, /installing|copying/);
  });

  it('is refused on the host, where envproof installs nothing into the system', () => {
    for (const command of [
      ['audit', path.join(FIXTURES, 'py-app'), '--sandbox', 'host', '--system-packages', 'libbrotli-dev'],
      ['run', '--agent', `scripted:${SCRIPT}`, '--store', path.join(os.tmpdir(), `envproof-never-${process.pid}.db`), '--tasks', 'p_01', '--languages', 'python', '--sandbox', 'host', '--system-packages', 'libbrotli-dev'],
    ]) {
      const r = runCli(command);
      assert.equal(r.status, 2, `${command[0]}: ${r.stderr}`);
      assert.match(r.stderr, /--system-packages needs an isolating sandbox/);
    }
  });
});
