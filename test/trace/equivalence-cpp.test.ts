import path from 'node:path';
import { after } from 'node:test';
import { FIXTURES, fixtureContext, localGitRepo, localTarball, removeTempDirs } from '../cpp/helpers.js';
import { describeEquivalence } from './equivalence.js';

after(removeTempDirs);

describeEquivalence({
  ecosystem: 'cpp',
  fixtures: FIXTURES,
  traced: ['crash', 'fetch', 'fetch-shared', 'pkgconfig', 'zlib-json'],
  // The FetchContent fixtures fetch from local repositories made here, as test/cpp does.
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
