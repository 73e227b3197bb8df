/**
 * The audit's outputs and `envproof fix` on the CMake fixture (cpp-fix, with envproof.config.yaml), one audit.
 * Known by hand: nlohmann_json is header-only (installed, never loaded), the program loads Debian's libz.so.1
 * (zlib1g 1.2.13 on bookworm) without a find_package, and nlohmann_json's `3.2` is a minimum, not a pin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditFixture, checkFix, checkGithubAndMarkdown, checkSarif, checkSbom, type AuditedFixture, type ExpectedOutputs } from './helpers.js';

const expected: ExpectedOutputs = {
  manifest: 'CMakeLists.txt',
  installed: ['nlohmann-json@3.11.2'],
  loaded: ['z@1.2.13'],
  loadedFiles: { z: /^\/usr\/lib\/x86_64-linux-gnu\/libz\.so\.1/ },
  edges: [],
  hashes: false,
  findings: [
    { rule: 'phantom-not-traced', name: 'nlohmann-json', line: 'find_package( nlohmann_json', ignored: true },
    { rule: 'hidden', name: 'z' },
    { rule: 'unpinned', name: 'nlohmann-json', line: 'find_package( nlohmann_json' },
  ],
};

describe('outputs: CMake', () => {
  let a: AuditedFixture;
  before(async () => {
    a = await auditFixture('cpp-fix', ['CMakeLists.txt']);
  });
  after(() => a?.dispose());

  it('reads envproof.config.yaml: the header-only phantom is ignored', () => {
    const phantom = a.report.findings.find((f: any) => f.kind === 'phantom');
    assert.equal(phantom.name, 'nlohmann-json');
    assert.equal(phantom.ignored, true);
  });
  it('writes a CycloneDX 1.6 SBOM of D2 and D3 with evidence on exactly D3', () => checkSbom(a, expected));
  it('names the components by their Debian packages, versions in Debian\'s format', () => {
    const purls = a.report.components.map((c: any) => c.purl).sort();
    // nlohmann-json3-dev 3.11.2-2 and zlib1g 1:1.2.13.dfsg-1 are bookworm's (dpkg -l).
    assert.deepEqual(purls, ['pkg:deb/debian/nlohmann-json3-dev@3.11.2-2?arch=amd64', 'pkg:deb/debian/zlib1g@1:1.2.13.dfsg-1?arch=amd64']);
  });
  it('writes SARIF 2.1.0 with a result per finding on its manifest line', () => checkSarif(a, expected));
  it('writes GitHub annotations and a Markdown comment', () => checkGithubAndMarkdown(a, expected));

  it('fix: pins find_package in place and adds find_package(ZLIB) after the last one; the re-audit is clean', async () => {
    const text = a.original['CMakeLists.txt']!;
    const pkgConfig = 'find_package(PkgConfig QUIET)                  # declared, never used\n';
    const want = text
      .replace('find_package( nlohmann_json   3.2 REQUIRED )', 'find_package( nlohmann_json   3.11.2 EXACT REQUIRED )')
      .replace(pkgConfig, `${pkgConfig}find_package(ZLIB 1.2.13 EXACT REQUIRED)  # added by envproof fix: libz is loaded at run time\n`);
    await checkFix(a, { 'CMakeLists.txt': want });
  });
});
