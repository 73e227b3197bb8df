// tier: quick
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EnvproofError } from '../../../src/core/errors.js';
import { runProcess } from '../../../src/core/process.js';
import { parseCmake } from '../../../src/ecosystems/cpp/lexer.js';
import { extractCmakeDeclared } from '../../../src/ecosystems/cpp/manifest.js';
import { cmakeName, runtimeLibraryName } from '../../../src/ecosystems/cpp/names.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

describe('CMake lexer', () => {
  it('reads quoted, bracket and unquoted arguments, escapes, continuations and lists', () => {
    const [cmd] = parseCmake('set(V "a \\"b\\"\\n\\\nc" [=[x]]y]=] one;two\\;three ${X})\n', 't.cmake');
    assert.deepEqual(
      cmd?.args.map((a) => [a.kind, a.value]),
      [
        ['unquoted', 'V'],
        ['quoted', 'a "b"\nc'],
        ['bracket', 'x]]y'],
        ['unquoted', 'one'],
        ['unquoted', 'two;three'],
        ['unquoted', '${X}'],
      ],
    );
  });

  it('keeps positions of commands spanning lines and skips every kind of comment', () => {
    const cmds = parseCmake('# c(1)\n#[[ c(2)\n]] #[==[ ]] ]==]\n  foo(\n a # ) not a paren\n (b c) )\nBar()', 't.cmake');
    assert.deepEqual(
      cmds.map((c) => [c.name, c.rawName, c.line, c.column, c.args.map((a) => a.value)]),
      [
        ['foo', 'foo', 4, 3, ['a', 'b', 'c']],
        ['bar', 'Bar', 7, 1, []],
      ],
    );
  });

  const bad: [string, string, RegExp][] = [
    ['unbalanced parentheses', 'project(x)\nfind_package(ZLIB REQUIRED\nadd_executable(a b)\n', /^t\.cmake:2:1: unbalanced parentheses/],
    ['nested unbalanced parentheses', 'if((A AND (B)\n', /^t\.cmake:1:4: unbalanced parentheses: this "\(" is never closed/],
    ['a stray closing parenthesis', 'project(x))\n', /^t\.cmake:1:11: expected a command name; unbalanced/],
    ['an unterminated string', 'project(x)\nmessage("abc)\n', /^t\.cmake:2:9: unterminated quoted argument/],
    ['an unterminated bracket argument', 'set(x [[abc)\n', /^t\.cmake:1:7: unterminated bracket argument/],
    ['an unterminated bracket comment', 'x()\n #[=[ abc ]]\n', /^t\.cmake:2:2: unterminated bracket comment/],
    ['an invalid escape', 'set(x "\\q")', /^t\.cmake:1:8: invalid escape sequence/],
    ['a command without parentheses', 'project x\n', /^t\.cmake:1:9: expected "\("/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what} with line:column`, () => {
      assert.throws(() => parseCmake(text, 't.cmake'), (err: unknown) => err instanceof EnvproofError && message.test(err.message) && !!err.hint);
    });
  }
});

describe('C++ names', () => {
  it('follows the paper: CMake names as written, runtime libraries lib-stripped', () => {
    assert.equal(cmakeName('nlohmann_json'), 'nlohmann-json');
    assert.equal(cmakeName('LibArchive'), 'libarchive');
    assert.equal(runtimeLibraryName('libz.so.1'), 'z');
    assert.equal(runtimeLibraryName('libgssapi_krb5.so.2'), 'gssapi-krb5');
    assert.equal(runtimeLibraryName('libfmt.a'), 'fmt');
  });
});

describe('extractCmakeDeclared', () => {
  it('finds every declaration kind, follows add_subdirectory/include, ignores comments and strings', async () => {
    const r = await extractCmakeDeclared(path.join(FIXTURES, 'declared'));
    assert.equal(r.manifest, 'CMakeLists.txt');
    assert.deepEqual(
      [...new Set(r.declared.map((d) => d.name))].sort(),
      ['boost', 'catch2', 'extproj', 'fmt', 'gio-2.0', 'glib-2.0', 'json', 'legacy-dep', 'libssl', 'nlohmann-json', 'openssl', 'qt6', 'spdlog', 'threads', 'zlib'],
    );
    // PkgConfig finds a program, not a library: a build tool, reported apart (Threads is a library and stays).
    assert.deepEqual(r.buildTools?.map((d) => d.name), ['pkgconfig']);
    const byId = new Map(r.declared.map((d) => [d.id, d]));
    assert.equal(byId.get('FIND_PACKAGE(Boost 1.74 REQUIRED COMPONENTS system filesystem)')?.source, 'CMakeLists.txt:11');
    assert.ok(byId.has('find_package(Qt6 COMPONENTS Core Widgets OPTIONAL_COMPONENTS Network)'));
    assert.ok(byId.has('find_package(nlohmann_json QUIET)'));
    assert.equal(byId.get('FetchContent_Declare(Catch2 https://example.invalid/catch2.git)')?.version, 'v3.5.2');
    assert.equal(byId.get('FetchContent_Declare(fmt https://example.invalid/fmt-10.2.1.zip)')?.version, '10.2.1');
    assert.equal(byId.get('FetchContent_Declare(json https://example.invalid/json/releases/download/v3.11.2/json.tar.xz)')?.version, '3.11.2');
    assert.equal(byId.get('FetchContent_Declare(spdlog https://example.invalid/spdlog.git)')?.version, 'v1.12.0', 'a literal set() variable is expanded');
    assert.equal(byId.get('pkg_check_modules(GLIB glib-2.0>=2.50)')?.version, '>=2.50');
    assert.equal(byId.get('find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)')?.source, 'cmake/deps.cmake:1');
    assert.equal(byId.get('find_package(Threads)')?.source, 'src/CMakeLists.txt:2');
    // Own targets (mylib, declared) are not external link evidence.
    assert.deepEqual(r.other.target_link_libraries?.map((d) => d.id), ['ZLIB::ZLIB', 'fmt::fmt']);
    assert.deepEqual(
      r.skipped.map((s) => [s.raw, s.reason]),
      [
        ['find_package(${DEP_FROM_VARIABLE})', 'unresolved-property'],
        ['add_subdirectory(missing_dir)', 'include-missing'],
        ['include(cmake/deps.cmake)', 'include-cycle'],
      ],
    );
  });

  // Laid out as ccache's cmake/Dependencies.cmake: find_package calls reached only by include(<Module>) through
  // CMAKE_MODULE_PATH, some of them under options that are off by default.
  it('follows include(<Module>) through CMAKE_MODULE_PATH and reports find_package under an option off by default as conditional', async () => {
    const dir = path.join(FIXTURES, 'module-path');
    const r = await extractCmakeDeclared(dir);
    const declared = r.declared.map((d) => d.name).sort();
    assert.deepEqual(declared, ['blake3', 'doctest', 'fmt', 'threads', 'tlexpected', 'xxhash', 'zlib', 'zstd']);
    assert.deepEqual(r.other.conditional?.map((d) => [d.name, d.source]), [
      ['cpphttplib', 'cmake/Dependencies.cmake:6'],
      ['hiredis', 'cmake/Dependencies.cmake:12'],
      ['openssl', 'cmake/RedisHelpers.cmake:3'],
    ]);
    assert.ok(r.notes.some((n) => n.includes('find_package(Hiredis 0.13.3 REQUIRED) at cmake/Dependencies.cmake:12 is under if(REDIS_STORAGE_BACKEND)')), r.notes.join('\n'));
    // CMake's own modules (CheckIncludeFile, GNUInstallDirs, FindPackageHandleStandardArgs) are neither read nor skipped.
    assert.deepEqual(r.skipped.map((s) => [s.raw, s.reason, s.source]), [
      ['include(NoSuchModule)', 'include-missing', 'CMakeLists.txt:16'],
      ['include(${EXTRA_MODULE})', 'unresolved-property', 'CMakeLists.txt:17'],
    ]);

    // Checked against CMake itself: a configure with find_package overridden to record its calls makes exactly the
    // declared ones, except Blake3 under if(MSVC), which envproof does not evaluate and reads as taken.
    const build = await mkdtemp(path.join(os.tmpdir(), 'envproof-modpath-'));
    try {
      const recorder = path.join(build, 'record.cmake');
      await writeFile(recorder, 'function(find_package name)\n  file(APPEND "${CMAKE_BINARY_DIR}/found.txt" "${name}\\n")\nendfunction()\n');
      await runProcess(['cmake', '-S', dir, '-B', path.join(build, 'b'), `-DCMAKE_PROJECT_INCLUDE_BEFORE=${recorder}`], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 60_000 });
      const called = (await readFile(path.join(build, 'b', 'found.txt'), 'utf8')).split('\n').filter(Boolean).map(cmakeName).sort();
      assert.deepEqual(called, declared.filter((n) => n !== 'blake3'));
    } finally {
      await rm(build, { recursive: true, force: true });
    }
  });

  it('refuses a CMakeLists.txt with unbalanced parentheses, naming the line', async () => {
    await assert.rejects(extractCmakeDeclared(path.join(FIXTURES, 'bad-parens')), /^EnvproofError: CMakeLists\.txt:3:1: unbalanced parentheses: "find_package\(" is never closed/);
  });

  it('refuses a directory without CMakeLists.txt', async () => {
    await assert.rejects(extractCmakeDeclared(FIXTURES), (err: unknown) => err instanceof EnvproofError && /no CMakeLists\.txt/.test(err.message));
  });
});
