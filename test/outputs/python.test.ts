/**
 * The audit's outputs and `envproof fix` on the two Python fixtures: requirements.txt (py-fix) and pyproject.toml
 * with [tool.envproof] (py-pyproject-fix, which also shows the phantom split). One audit per fixture.
 * Known by hand: python-dateutil 2.9.0.post0 (the newest in the range) requires six; main.py imports both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditFixture, checkFix, checkGithubAndMarkdown, checkSarif, checkSbom, type AuditedFixture, type ExpectedOutputs } from './helpers.js';

const SITE = /^\$ENVPROOF_ENV\/venv\/lib\/python3\.\d+\/site-packages\//;
const dateutilAndSix = {
  loaded: ['python-dateutil@2.9.0.post0', 'six@1.17.0'],
  loadedFiles: { 'python-dateutil': new RegExp(`${SITE.source}dateutil/`), six: new RegExp(`${SITE.source}(__pycache__/)?six[.]`) },
  edges: [['python-dateutil@2.9.0.post0', 'six@1.17.0']] as [string, string][],
  hashes: true,
};

describe('outputs: Python, requirements.txt', () => {
  let a: AuditedFixture;
  const expected: ExpectedOutputs = {
    manifest: 'requirements.txt',
    installed: ['python-dateutil@2.9.0.post0', 'six@1.17.0', 'tabulate@0.9.0'],
    ...dateutilAndSix,
    // tabulate and six: `License: MIT` and the MIT classifier; python-dateutil: the Apache and the ambiguous "BSD License" classifiers.
    licenses: { tabulate: 'MIT', six: 'MIT', 'python-dateutil': null },
    findings: [
      { rule: 'phantom-unused', name: 'tabulate', line: 'tabulate == 0.9.0' },
      // main.py:3 imports six: direct, located at the import.
      { rule: 'hidden-direct', name: 'six', at: 'main.py:3' },
      { rule: 'unpinned', name: 'python-dateutil', line: 'python-dateutil>=2.8' },
    ],
  };
  before(async () => {
    a = await auditFixture('py-fix', ['requirements.txt']);
  });
  after(() => a?.dispose());

  it('writes a CycloneDX 1.6 SBOM of D2 with evidence on exactly D3', () => checkSbom(a, expected));
  it('writes SARIF 2.1.0 with a result per finding on its manifest line', () => checkSarif(a, expected));
  it('writes GitHub annotations and a Markdown comment', () => checkGithubAndMarkdown(a, expected));

  it('fix: pins, removes the unused phantom, declares the hidden one, keeping every other byte', async () => {
    const text = a.original['requirements.txt']!;
    const want = `${text
      .replace('python-dateutil>=2.8,<=2.9.0.post0     # dates', 'python-dateutil==2.9.0.post0     # dates')
      .replace('tabulate == 0.9.0    # declared, never imported\n', '')}six==1.17.0\n`;
    const result = await checkFix(a, { 'requirements.txt': want });
    assert.deepEqual(result.after.layers.declared.map((d: any) => `${d.name}${d.version ? `@${d.version}` : ''}`).sort(), ['python-dateutil@2.9.0.post0', 'six@1.17.0']);
  });
});

describe('outputs: Python, pyproject.toml with [tool.envproof]', () => {
  let a: AuditedFixture;
  const expected: ExpectedOutputs = {
    manifest: 'pyproject.toml',
    installed: ['idna@3.7', 'python-dateutil@2.9.0.post0', 'six@1.17.0', 'tabulate@0.9.0'],
    ...dateutilAndSix,
    findings: [
      { rule: 'phantom-unused', name: 'idna', line: '"idna == 3.7"' },
      { rule: 'phantom-not-traced', name: 'tabulate', line: '"tabulate==0.9.0"', ignored: true },
      { rule: 'hidden-direct', name: 'six', at: 'main.py:5' },
      { rule: 'unpinned', name: 'python-dateutil', line: "'python-dateutil >=2.8" },
    ],
  };
  before(async () => {
    a = await auditFixture('py-pyproject-fix', ['pyproject.toml']);
  });
  after(() => a?.dispose());

  it('splits the phantoms: idna nothing imports, tabulate imported behind --table (main.py:9)', () => {
    const phantoms = a.report.findings.filter((f: any) => f.kind === 'phantom');
    const byName = Object.fromEntries(phantoms.map((f: any) => [f.name, f]));
    assert.deepEqual(Object.keys(byName).sort(), ['idna', 'tabulate']);
    assert.equal(byName.idna.phantom, 'unused');
    assert.match(byName.idna.advice, /remove it/);
    assert.equal(byName.tabulate.phantom, 'not-traced');
    assert.deepEqual(byName.tabulate.importedAt, ['main.py:9']);
    assert.match(byName.tabulate.advice, /trace the entry points/);
    // [tool.envproof] ignore.phantom was read: the finding stays, marked, and does not fail the exit code.
    assert.equal(byName.tabulate.ignored, true);
    assert.equal(byName.idna.ignored, undefined);
  });
  it('writes a CycloneDX 1.6 SBOM of D2 with evidence on exactly D3', () => checkSbom(a, expected));
  it('leaves the project\'s own distribution out of the components and their notes', () => {
    assert.deepEqual(a.report.ownPackages, ['pyproject-fix']);
    assert.deepEqual(a.report.componentNotes, [], 'every installed distribution has its archive hash');
  });
  it('writes SARIF 2.1.0, the ignored finding suppressed', () => checkSarif(a, expected));
  it('writes GitHub annotations and a Markdown comment without the ignored finding', () => checkGithubAndMarkdown(a, expected));

  it('fix: edits [project].dependencies in place, leaves the imported phantom, and the re-audit is clean', async () => {
    const text = a.original['pyproject.toml']!;
    const want = text
      .replace("'python-dateutil >=2.8, <=2.9.0.post0',", "'python-dateutil ==2.9.0.post0',")
      .replace('  "idna == 3.7"  # never imported\n', '    "six==1.17.0",\n');
    const result = await checkFix(a, { 'pyproject.toml': want });
    assert.deepEqual(result.kept.map((k: any) => k.name), ['tabulate']);
  });
});
