// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installedFromTree, parseNpmLs } from '../../../src/ecosystems/javascript/npm-tree.js';

// The shape of `npm ls --all --json --long` (npm 11), trimmed: an optional dependency skipped on this
// platform (an empty object), a missing one (deleted after install: npm ls exits 1 with ELSPROBLEMS),
// an alias, a nested copy, a copy listed twice (deduped) and a file: link.
const LS = JSON.stringify({
  name: 'proj',
  version: '1.0.0',
  path: '/w/proj',
  problems: ['missing: is-number@7.0.0, required by proj@1.0.0'],
  dependencies: {
    fsevents: {},
    'is-number': { missing: true, problems: ['missing: is-number@7.0.0, required by proj@1.0.0'] },
    str: { name: 'left-pad', version: '1.3.0', path: '/w/proj/node_modules/str', resolved: 'https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz' },
    debug: {
      name: 'debug',
      version: '2.6.9',
      path: '/w/proj/node_modules/debug',
      dependencies: { ms: { name: 'ms', version: '2.0.0', path: '/w/proj/node_modules/debug/node_modules/ms' } },
    },
    ms: { name: 'ms', version: '2.1.3', path: '/w/proj/node_modules/ms' },
    a: { name: 'a', version: '1.0.0', path: '/w/proj/node_modules/a', dev: true, dependencies: { ms: { name: 'ms', version: '2.1.3', path: '/w/proj/node_modules/ms' } } },
    local: { name: 'local', version: '0.1.0', path: '/w/proj/node_modules/local', resolved: 'file:../local' },
  },
});

describe('npm ls tree', () => {
  const tree = parseNpmLs(LS, '/w/proj');

  it('D2: installed nodes only, nested copies distinct, duplicates once, aliases under their key', () => {
    assert.deepEqual(
      installedFromTree(tree).map((d) => [d.name, d.version, d.id, d.source]),
      [
        ['a', '1.0.0', undefined, 'node_modules/a'],
        ['debug', '2.6.9', undefined, 'node_modules/debug'],
        ['local', '0.1.0', undefined, 'node_modules/local'],
        ['ms', '2.0.0', undefined, 'node_modules/debug/node_modules/ms'],
        ['ms', '2.1.3', undefined, 'node_modules/ms'],
        ['str', '1.3.0', 'npm:left-pad@1.3.0', 'node_modules/str'],
      ],
    );
  });

  it('keeps npm problems, flags and non-registry sources in the tree', () => {
    assert.deepEqual(tree.problems, ['missing: is-number@7.0.0, required by proj@1.0.0']);
    const byName = new Map(tree.root.dependencies.map((n) => [n.name, n]));
    assert.equal(byName.get('is-number')?.missing, true);
    assert.equal(byName.get('a')?.dev, true);
    assert.equal(byName.get('local')?.resolved, 'file:../local');
    assert.equal(byName.get('str')?.resolved, undefined);
    assert.equal(byName.get('str')?.realName, 'left-pad');
    assert.equal(tree.root.path, '.');
  });

  it('refuses output that is not a JSON object', () => {
    assert.throws(() => parseNpmLs('[]', '/w'), SyntaxError);
    assert.throws(() => parseNpmLs('npm error', '/w'), SyntaxError);
  });
});
