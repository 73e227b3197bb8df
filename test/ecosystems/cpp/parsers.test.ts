// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCmakeCache } from '../../../src/ecosystems/cpp/configure.js';
import { parseDepfile } from '../../../src/ecosystems/cpp/depfiles.js';
import { parseDpkgSearch, usrMerged } from '../../../src/ecosystems/cpp/dpkg.js';
import { classifyBuildFailure, classifyConfigureFailure } from '../../../src/ecosystems/cpp/failure.js';
import { parseProviderLog } from '../../../src/ecosystems/cpp/provider.js';

describe('C++ helpers', () => {
  it('parseDepfile: continuations, escaped spaces, relative paths, phony rules', () => {
    const text = 'CMakeFiles/a.dir/main.cpp.o: ../src/main.cpp \\\n /usr/include/zlib.h /opt/my\\ dir/x.h \\\n  gen/$$v.h\n/usr/include/zlib.h:\n';
    assert.deepEqual(parseDepfile(text, '/w/build'), ['/w/src/main.cpp', '/usr/include/zlib.h', '/opt/my dir/x.h', '/w/build/gen/$v.h']);
  });

  it('parseDpkgSearch: architecture qualifiers, several owners, diversions', () => {
    const out = [
      'zlib1g:amd64: /lib/x86_64-linux-gnu/libz.so.1',
      'libc6-dev:amd64, libc6-dev:i386: /usr/include/stdio.h',
      'diversion by dash from: /bin/sh',
      'nlohmann-json3-dev: /usr/include/nlohmann/json.hpp',
    ].join('\n');
    assert.deepEqual(
      [...parseDpkgSearch(out)],
      [
        ['/lib/x86_64-linux-gnu/libz.so.1', ['zlib1g']],
        ['/usr/include/stdio.h', ['libc6-dev', 'libc6-dev']],
        ['/usr/include/nlohmann/json.hpp', ['nlohmann-json3-dev']],
      ],
    );
    assert.equal(usrMerged('/lib/x86_64-linux-gnu/libz.so.1'), '/usr/lib/x86_64-linux-gnu/libz.so.1');
    assert.equal(usrMerged('/opt/lib/x.so'), '/opt/lib/x.so');
  });

  it('parseProviderLog: nested requests get their own results; a request without one is where configure stopped', () => {
    const log = [
      'request\tFIND_PACKAGE\tOuter\t/p/CMakeLists.txt\t1.0;REQUIRED',
      'request\tFIND_PACKAGE\tInner\t/usr/lib/cmake/Outer/OuterConfig.cmake\t',
      'result\tFIND_PACKAGE\tInner\t1\t2.3\t/usr/lib/libinner.so',
      'result\tFIND_PACKAGE\tOuter\tTRUE\t\t/usr/lib/cmake/Outer/OuterConfig.cmake;/usr/lib/libouter.so',
      'request\tFETCHCONTENT_MAKEAVAILABLE_SERIAL\tfmt\t/p/CMakeLists.txt\tGIT_REPOSITORY;file:///r;GIT_TAG;v1',
      'request\tFIND_PACKAGE\tQuietOne\t/p/CMakeLists.txt\tQUIET',
      'result\tFIND_PACKAGE\tQuietOne\tQuietOne-NOTFOUND\t\t',
      'request\tFIND_PACKAGE\tCURL\t/p/CMakeLists.txt\tREQUIRED',
    ].join('\n');
    const parsed = parseProviderLog(log);
    assert.deepEqual(
      parsed.findPackages.map((r) => [r.name, r.found, r.version, r.files]),
      [
        ['Outer', true, undefined, ['/usr/lib/cmake/Outer/OuterConfig.cmake', '/usr/lib/libouter.so']],
        ['Inner', true, '2.3', ['/usr/lib/libinner.so']],
        ['QuietOne', false, undefined, []],
        ['CURL', undefined, undefined, []],
      ],
    );
    assert.deepEqual(parsed.findPackages[0]?.args, ['1.0', 'REQUIRED']);
    assert.deepEqual(parsed.fetches, [{ name: 'fmt', caller: '/p/CMakeLists.txt', args: ['GIT_REPOSITORY', 'file:///r', 'GIT_TAG', 'v1'] }]);
  });

  it('parseCmakeCache: typed entries, comments skipped', () => {
    const cache = parseCmakeCache('// help\n# comment\nZPC_FOUND:INTERNAL=1\nCMAKE_ROOT:INTERNAL=/usr/share/cmake-3.25\nX:FILEPATH=/a=b\n');
    assert.deepEqual([...cache], [['ZPC_FOUND', '1'], ['CMAKE_ROOT', '/usr/share/cmake-3.25'], ['X', '/a=b']]);
  });

  it('classifies failures: a fetch failure wins over a not-found line; anything else is configuration or build', () => {
    assert.equal(classifyConfigureFailure('CMake Error at /usr/share/cmake-3.25/Modules/FetchContent.cmake:1624 (message):\n  Build step for fmt failed: 2\n').failureClass, 'fetch-failure');
    assert.equal(classifyConfigureFailure('Could NOT find OpenSSL, try to set the path\nBuild step for x failed: 2').failureClass, 'fetch-failure');
    assert.deepEqual(classifyConfigureFailure('CMake Error at CMakeLists.txt:3 (find_package):\n  Could NOT find CURL (missing: CURL_LIBRARY CURL_INCLUDE_DIR)'), { failureClass: 'missing-system-library', subject: 'CURL' });
    assert.equal(classifyConfigureFailure('CMake Error at CMakeLists.txt:5 (add_executable):\n  Cannot find source file:\n    nope.cpp').failureClass, 'build-configuration');
    assert.equal(classifyBuildFailure("main.cpp:1:21: error: 'x' was not declared in this scope").failureClass, 'build');
  });
});
