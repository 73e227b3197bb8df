/**
 * The audit's outputs and `envproof fix` on the npm fixture (js-fix), one audit. Known by hand from its lockfile:
 * chalk 4.1.2 needs ansi-styles 4.3.0 (→ color-convert → color-name) and supports-color 7.2.0 (→ has-flag);
 * main.js requires chalk and supports-color; chalk loads ansi-styles and supports-color, supports-color has-flag.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditFixture, checkFix, checkGithubAndMarkdown, checkSarif, checkSbom, type AuditedFixture, type ExpectedOutputs } from './helpers.js';

const expected: ExpectedOutputs = {
  manifest: 'package.json',
  installed: ['ansi-styles@4.3.0', 'chalk@4.1.2', 'color-convert@2.0.1', 'color-name@1.1.4', 'has-flag@4.0.0', 'left-pad@1.3.0', 'supports-color@7.2.0'],
  loaded: ['ansi-styles@4.3.0', 'chalk@4.1.2', 'has-flag@4.0.0', 'supports-color@7.2.0'],
  loadedFiles: Object.fromEntries(['ansi-styles', 'chalk', 'has-flag', 'supports-color'].map((n) => [n, new RegExp(`^node_modules/${n}/`)])),
  edges: [
    ['chalk@4.1.2', 'ansi-styles@4.3.0'],
    ['chalk@4.1.2', 'supports-color@7.2.0'],
    ['supports-color@7.2.0', 'has-flag@4.0.0'],
    ['ansi-styles@4.3.0', 'color-convert@2.0.1'],
    ['color-convert@2.0.1', 'color-name@1.1.4'],
  ],
  hashes: true,
  // Each package.json's "license" (left-pad 1.3.0 is WTFPL, the others MIT).
  licenses: { 'ansi-styles': 'MIT', chalk: 'MIT', 'color-convert': 'MIT', 'color-name': 'MIT', 'has-flag': 'MIT', 'left-pad': 'WTFPL', 'supports-color': 'MIT' },
  findings: [
    { rule: 'phantom-unused', name: 'left-pad', line: '"left-pad": "1.3.0"' },
    // chalk brings ansi-styles, supports-color has-flag; main.js:3 requires supports-color.
    { rule: 'hidden-transitive', name: 'ansi-styles' },
    { rule: 'hidden-transitive', name: 'has-flag' },
    { rule: 'hidden-direct', name: 'supports-color', at: 'main.js:3' },
    { rule: 'unpinned', name: 'chalk', line: '"chalk": "^4.1.0"' },
  ],
};

describe('outputs: npm', () => {
  let a: AuditedFixture;
  before(async () => {
    a = await auditFixture('js-fix', ['package.json', 'package-lock.json']);
  });
  after(() => a?.dispose());

  it('writes a CycloneDX 1.6 SBOM of D2 with evidence on exactly D3', () => checkSbom(a, expected));
  it('writes SARIF 2.1.0 with a result per finding on its manifest line', () => checkSarif(a, expected));
  it('writes GitHub annotations and a Markdown comment', () => checkGithubAndMarkdown(a, expected));

  it('fix: edits only the dependencies member (declaring the required supports-color, not chalk\'s own dependencies), npm refreshes the lockfile, and the re-audit is clean', async () => {
    const text = a.original['package.json']!;
    const want = text.replace(
      '        "left-pad": "1.3.0",\n        "chalk": "^4.1.0"\n',
      '        "chalk": "4.1.2",\n        "supports-color": "7.2.0"\n',
    );
    assert.notEqual(want, text);
    // The lockfile is npm's to write: checked below by its content, not byte for byte.
    const original = a.original;
    const result = await checkFix({ ...a, original: { 'package.json': original['package.json']! } }, { 'package.json': want });
    assert.deepEqual(result.refreshed, ['package-lock.json']);
    const lock = JSON.parse(await readFile(path.join(a.dir, 'package-lock.json'), 'utf8'));
    assert.deepEqual(lock.packages[''].dependencies, { chalk: '4.1.2', 'supports-color': '7.2.0' });
    assert.equal(lock.packages['node_modules/left-pad'], undefined, 'the removed package left the lockfile');
    assert.equal(lock.packages['node_modules/chalk'].version, '4.1.2');
    assert.notEqual(await readFile(path.join(a.dir, 'package-lock.json'), 'utf8'), original['package-lock.json']);
  });
});
