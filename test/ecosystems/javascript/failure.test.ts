// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyNpmFailure, npmFailureSummary } from '../../../src/ecosystems/javascript/failure.js';

// Captured from real npm 11 runs on this machine (GitHub is not reachable from it).
const GIT_FAILURE = `npm error code 128
npm error An unknown git error occurred
npm error command git --no-replace-objects ls-remote ssh://git@github.com/someuser/somerepo.git
npm error ssh: Could not resolve hostname github.com: Name or service not known
npm error fatal: Could not read from remote repository.
npm error
npm error A complete log of this run can be found in: /tmp/cache/_logs/2026-11-29T13_26_57_585Z-debug-0.log`;

const TARBALL_DNS_FAILURE = `npm error code ENOTFOUND
npm error syscall getaddrinfo
npm error errno ENOTFOUND
npm error network request to https://example.com/foo-1.0.0.tgz failed, reason: getaddrinfo ENOTFOUND example.com
npm error network This is a problem related to network connectivity.`;

// npm 9 (Debian bookworm's, in the bwrap environment) prints `npm ERR!` and the log path on its own line.
const NPM9_ETARGET = `npm ERR! code ETARGET
npm ERR! notarget No matching version found for is-number@99.0.0.
npm ERR! notarget In most cases you or one of your dependencies are requesting
npm ERR! notarget a package version that doesn't exist.

npm ERR! A complete log of this run can be found in:
npm ERR!     /envproof/cache/npm/_logs/2026-11-29T13_39_12_565Z-debug-0.log`;

describe('classifyNpmFailure', () => {
  it('a git dependency that cannot be fetched is a fetch failure, not a network one', () => {
    assert.equal(classifyNpmFailure(GIT_FAILURE), 'fetch-failure');
  });
  it('a tarball URL whose host does not resolve is a network failure', () => {
    assert.equal(classifyNpmFailure(TARBALL_DNS_FAILURE), 'network');
  });
  it('reads the npm ERR! prefix of older npm', () => {
    assert.equal(classifyNpmFailure(NPM9_ETARGET), 'no-matching-version');
  });
  it('anything else is other', () => {
    assert.equal(classifyNpmFailure('npm error code EUSAGE\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.'), 'other');
    assert.equal(classifyNpmFailure(''), 'other');
  });
});

describe('npmFailureSummary', () => {
  it('gives the code and the first error lines, without the log pointer', () => {
    const s = npmFailureSummary(GIT_FAILURE);
    assert.equal(s.code, '128');
    assert.equal(
      s.text,
      'An unknown git error occurred\ncommand git --no-replace-objects ls-remote ssh://git@github.com/someuser/somerepo.git\nssh: Could not resolve hostname github.com: Name or service not known\nfatal: Could not read from remote repository.',
    );
  });
  it('drops npm 9\'s log path line', () => {
    assert.deepEqual(npmFailureSummary(NPM9_ETARGET), {
      code: 'ETARGET',
      text: "notarget No matching version found for is-number@99.0.0.\nnotarget In most cases you or one of your dependencies are requesting\nnotarget a package version that doesn't exist.",
    });
  });
  it('falls back to errno', () => {
    assert.equal(npmFailureSummary('npm error errno ECONNREFUSED\nnpm error FetchError: x').code, 'ECONNREFUSED');
  });
});
