// tier: quick
/** The C++ module's tables: build tools, Debian packages for missing libraries, Debian versions; and docs/cpp.md. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BUILD_TOOLS, isBuildTool } from '../../../src/ecosystems/cpp/build-tools.js';
import { BY_CMAKE_NAME, BY_PKG_CONFIG_MODULE, debianPackageFor } from '../../../src/ecosystems/cpp/debian-packages.js';
import { debianUpstreamVersion } from '../../../src/ecosystems/cpp/dpkg.js';
import { REPO_ROOT } from '../../helpers/cli.js';

describe('build tools', () => {
  it('programs are build tools, libraries are not; Threads is a library', () => {
    for (const name of ['PkgConfig', 'Git', 'Doxygen', 'BISON', 'FLEX', 'PythonInterp', 'Perl', 'Java']) assert.ok(isBuildTool(name, []), name);
    for (const name of ['Threads', 'ZLIB', 'PythonLibs', 'PerlLibs', 'JNI', 'Intl', 'OpenSSL']) assert.ok(!isBuildTool(name, []), name);
  });

  it('Python3 is the interpreter unless a component asks for the library', () => {
    assert.ok(isBuildTool('Python3', []));
    assert.ok(isBuildTool('Python3', ['Interpreter']));
    assert.ok(!isBuildTool('Python3', ['Interpreter', 'Development']));
    assert.ok(!isBuildTool('Python', ['Development.Module']));
    assert.ok(!isBuildTool('Python3', ['NumPy']));
    assert.ok(isBuildTool('ImageMagick', ['convert']));
    assert.ok(!isBuildTool('ImageMagick', ['Magick++']));
  });
});

describe('the Debian package of a missing library', () => {
  it('knows the common CMake packages', () => {
    const expected: Record<string, string> = {
      Brotli: 'libbrotli-dev',
      BrotliDec: 'libbrotli-dev',
      fmt: 'libfmt-dev',
      OpenSSL: 'libssl-dev',
      CURL: 'libcurl4-openssl-dev',
      SQLite3: 'libsqlite3-dev',
      PNG: 'libpng-dev',
      JPEG: 'libjpeg-dev',
      Protobuf: 'libprotobuf-dev protobuf-compiler',
      GTest: 'libgtest-dev',
      Eigen3: 'libeigen3-dev',
      nlohmann_json: 'nlohmann-json3-dev',
      'yaml-cpp': 'libyaml-cpp-dev',
    };
    for (const [name, pkg] of Object.entries(expected)) assert.equal(debianPackageFor(name, 'find_package'), pkg, name);
    assert.equal(debianPackageFor('EnvproofAbsentLib', 'find_package'), undefined);
  });

  it('Boost: one package per component, the headers alone without', () => {
    assert.equal(debianPackageFor('Boost', 'find_package', ['system', 'program_options']), 'libboost-system-dev libboost-program-options-dev');
    assert.equal(debianPackageFor('Boost', 'find_package'), 'libboost-dev');
  });

  it('pkg-config modules, by their own names or through the CMake table', () => {
    assert.equal(debianPackageFor('glib-2.0', 'pkg-config'), 'libglib2.0-dev');
    assert.equal(debianPackageFor('libbrotlidec', 'pkg-config'), 'libbrotli-dev');
    assert.equal(debianPackageFor('libsodium', 'pkg-config'), 'libsodium-dev');
    assert.equal(debianPackageFor('envproof-absent-module', 'pkg-config'), undefined);
  });
});

describe('Debian versions', () => {
  it('the upstream part: no epoch, no revision, no repack suffix', () => {
    assert.equal(debianUpstreamVersion('1:1.2.13.dfsg-1'), '1.2.13');
    assert.equal(debianUpstreamVersion('1.0.9-2+b6'), '1.0.9');
    assert.equal(debianUpstreamVersion('3.11.2-2'), '3.11.2');
    assert.equal(debianUpstreamVersion('2.39.5-0+deb12u1'), '2.39.5');
    assert.equal(debianUpstreamVersion('1.74.0.3'), '1.74.0.3');
  });
});

describe('docs/cpp.md', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'cpp.md'), 'utf8');
  it('lists every build tool and every Debian package entry of the code', () => {
    for (const name of Object.keys(BUILD_TOOLS)) assert.ok(doc.includes(`| \`${name}\` |`), name);
    for (const [name, pkg] of [...Object.entries(BY_CMAKE_NAME), ...Object.entries(BY_PKG_CONFIG_MODULE)]) {
      assert.ok(doc.includes(`\`${name}\` → ${pkg.split(' ').map((p) => `\`${p}\``).join(' ')}`), name);
    }
  });
});
