import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from './helpers.js';

describe('envproof audit on C++ projects: bad input', () => {
  it('a CMakeLists.txt with unbalanced parentheses: exit 2, the position, a hint, no stack trace', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'bad-parens'), '--sandbox', 'host', '-q']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /CMakeLists\.txt:3:1: unbalanced parentheses/);
    assert.match(r.stderr, /hint: /);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });

  it('a library that is not installed: exit 2, classified, with CMake\'s own words', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'missing-lib'), '--sandbox', 'host', '-q']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /missing-system-library/);
    assert.match(r.stderr, /Could NOT find CURL/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });
});
