import path from 'node:path';
import { after } from 'node:test';
import { FIXTURES, fixtureContext, localGitRepo, localTarball, removeTempDirs } from '../ecosystems/cpp/helpers.js';
import { describeEquivalence } from './equivalence.js';

after(removeTempDirs);

describeEquivalence({
  ecosystem: 'cpp',
  fixtures: FIXTURES,
  traced: ['brotli-codec', 'crash', 'fetch', 'fetch-shared', 'pkgconfig', 'zlib-json'],
  untraced: {
    contract: 'the contract test\'s manifest, read for D1 only: there is nothing to run',
    'bad-parens': 'CMakeLists.txt does not parse',
    'build-fails': 'it does not compile',
    declared: 'a fixture of the CMakeLists.txt reader, without an executable',
    'module-path': 'a fixture of the CMakeLists.txt reader (CMAKE_MODULE_PATH, option()), without an executable',
    'missing-config': 'configure fails: a package is missing',
    'missing-lib': 'configure fails: a library is missing',
    'missing-pkgconfig': 'configure fails: a pkg-config module is missing',
    'banner-lib': 'a library the fetch fixture fetches',
    'greet-lib': 'a library the fetch fixture fetches',
    'shout-lib': 'a library the fetch fixture fetches',
    'hello-shared-lib': 'a library the fetch-shared fixture fetches',
  },
  // The FetchContent fixtures fetch from local repositories made here, as test/ecosystems/cpp does.
  async source(fixture) {
    if (fixture === 'fetch') {
      const shout = await localGitRepo('shout-lib', 'v0.1');
      const greet = await localGitRepo('greet-lib', 'v1.0', { SHOUT_REPO: shout });
      const banner = await localGitRepo('banner-lib', 'v2.0');
      return (await fixtureContext('fetch', { GREET_REPO: greet, BANNER_REPO: banner })).projectDir;
    }
    if (fixture === 'fetch-shared') {
      return (await fixtureContext('fetch-shared', { HELLO_URL: await localTarball('hello-shared-lib', 'hello-1.2.0.tar.gz') })).projectDir;
    }
    return path.join(FIXTURES, fixture);
  },
});
