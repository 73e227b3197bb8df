// tier: quick
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareVersions, parseSpecifier, parseSpecifierSet, parseVersion, pinnedVersion, specifierContains } from '../../../src/ecosystems/python/pep440.js';

function v(text: string) {
  const parsed = parseVersion(text);
  assert.ok(parsed, `${text} should parse`);
  return parsed;
}

function satisfies(version: string, clause: string): boolean {
  const spec = parseSpecifier(clause);
  assert.ok(spec, `${clause} should parse`);
  return specifierContains(spec, v(version), version);
}

test('versions sort in the order PEP 440 gives (dev < pre < final < post, local above public)', () => {
  // The PEP's own example ordering, written out by hand.
  const ordered = ['1.0.dev456', '1.0a1', '1.0a2.dev456', '1.0a12.dev456', '1.0a12', '1.0b1.dev456', '1.0b2', '1.0b2.post345.dev456', '1.0b2.post345', '1.0rc1.dev456', '1.0rc1', '1.0', '1.0+abc.5', '1.0+abc.7', '1.0+5', '1.0.post456.dev34', '1.0.post456', '1.1.dev1'];
  for (let i = 1; i < ordered.length; i++) {
    assert.equal(compareVersions(v(ordered[i - 1]!), v(ordered[i]!)), -1, `${ordered[i - 1]} < ${ordered[i]}`);
  }
});

test('normalised spellings compare equal; trailing zeros do not matter', () => {
  assert.equal(compareVersions(v('1.0'), v('1.0.0')), 0);
  assert.equal(compareVersions(v('v1.0-ALPHA.1'), v('1.0a1')), 0);
  assert.equal(compareVersions(v('1.0c1'), v('1.0rc1')), 0);
  assert.equal(compareVersions(v('1.0-1'), v('1.0.post1')), 0);
  assert.equal(compareVersions(v('3.10'), v('3.9')), 1, 'numeric, not string, comparison');
  assert.equal(parseVersion('1.0.x'), undefined);
  assert.equal(parseVersion('latest'), undefined);
});

test('specifier operators', () => {
  assert.equal(satisfies('3.11', '>=3.8'), true);
  assert.equal(satisfies('3.11', '<3.9'), false);
  assert.equal(satisfies('3.11.2', '==3.11.*'), true);
  assert.equal(satisfies('3.12.0', '==3.11.*'), false);
  assert.equal(satisfies('3.11.2', '!=3.11.*'), false);
  assert.equal(satisfies('2.2.1', '~=2.2'), true);
  assert.equal(satisfies('3.0', '~=2.2'), false);
  assert.equal(satisfies('1.4.5', '~=1.4.5'), true);
  assert.equal(satisfies('1.5.0', '~=1.4.5'), false);
  assert.equal(satisfies('1.0+local', '==1.0'), true, 'a local version matches its public version');
  assert.equal(satisfies('1.0', '==1.0+local'), false);
  assert.equal(satisfies('3.0rc1', '<3.0'), false, '<3.0 excludes 3.0 pre-releases');
  assert.equal(satisfies('2.9rc1', '<3.0'), true);
  assert.equal(satisfies('1.7.post1', '>1.7'), false, '>1.7 excludes 1.7 post-releases');
  assert.equal(satisfies('1.7.1', '>1.7'), true);
  assert.equal(satisfies('1.0', '===1.0'), true);
  assert.equal(satisfies('1.0.0', '===1.0'), false, '=== compares text, not versions');
  assert.equal(parseSpecifier('>=1.0.*'), undefined, 'wildcards only with == and !=');
  assert.equal(parseSpecifier('~=1'), undefined, '~= needs two release segments');
});

test('pins: a single == or === clause without wildcard', () => {
  assert.equal(pinnedVersion(parseSpecifierSet('==2.2.2')!), '2.2.2');
  assert.equal(pinnedVersion(parseSpecifierSet('===2.2.2-custom')!), '2.2.2-custom');
  assert.equal(pinnedVersion(parseSpecifierSet('==2.*')!), undefined);
  assert.equal(pinnedVersion(parseSpecifierSet('>=2,<3')!), undefined);
  assert.equal(pinnedVersion(parseSpecifierSet('')!), undefined);
  assert.equal(parseSpecifierSet('>=2,<'), undefined);
});
