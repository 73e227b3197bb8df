// tier: quick
/**
 * `envproof audit` on brotli-codec, with the real CMake, GCC, dpkg and strace (libbrotli-dev from scripts/setup.sh):
 * two find_package names, BrotliDec and BrotliEnc, come from one Debian package. Written by hand from the fixture:
 * codec_dec compiles decoder.cpp (<brotli/decode.h>) and links brotlidec by name; codec_enc compiles encoder.cpp
 * (<brotli/encode.h>) and links ${BROTLIENC_LIBRARIES}; brcodec links both wrappers; tools/brinfo includes
 * <brotli/decode.h> and links codec_dec. The project also looks for Git, and its find modules for PkgConfig.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { chooseExecutable, type Codemodel } from '../../../src/ecosystems/cpp/codemodel.js';
import { auditJson as audit } from '../../helpers/cli.js';
import { FIXTURES } from './helpers.js';

const names = (deps: readonly { name: string }[] | null) => [...new Set((deps ?? []).map((d) => d.name))].sort();
const DECODE_H = '/usr/include/brotli/decode.h';
const ENCODE_H = '/usr/include/brotli/encode.h';

const auditJson = (...extra: string[]) => audit(path.join(FIXTURES, 'brotli-codec'), ...extra).report;

describe('brotli-codec: two CMake packages from one Debian package', () => {
  let report: any;
  let viaTool: any;
  before(() => {
    report = auditJson();
    viaTool = auditJson('--run', 'brinfo');
  });

  it('each header goes to the package the compiling target links, so neither is a build-time phantom', () => {
    assert.equal(report.run.success, true, report.run.outputTail);
    assert.deepEqual(names(report.alternatives.buildTime), ['brotlidec', 'brotlienc']);
    assert.deepEqual(report.alternativeMetrics.buildTime.gaps.phantom, []);
    assert.ok(report.evidence.brotlidec.includes(DECODE_H), report.evidence.brotlidec.join('\n'));
    assert.ok(!report.evidence.brotlidec.includes(ENCODE_H));
    assert.ok(report.evidence.brotlienc.includes(ENCODE_H), report.evidence.brotlienc.join('\n'));
    assert.ok(!report.evidence.brotlienc.includes(DECODE_H));
    // The project's own static library on the link line of tools/brinfo is the project's, not a dependency.
    assert.deepEqual(report.alternativeMetrics.buildTime.gaps.hidden, []);
  });

  it('at run time both libraries are loaded, and the shared libbrotlicommon credits no third name', () => {
    assert.deepEqual(names(report.layers.traced), ['brotlidec', 'brotlienc']);
    assert.ok(names(report.alternatives.runtimeLibraryNames).includes('brotlicommon'));
  });

  it('one version format in every layer; Debian’s own version kept beside it', () => {
    const debian = execFileSync('dpkg-query', ['-W', '-f', '${Version}', 'libbrotli1'], { encoding: 'utf8' });
    for (const entry of [...report.layers.traced, ...report.alternatives.buildTime]) {
      const installed = report.layers.installed.find((d: { name: string }) => d.name === entry.name);
      assert.equal(entry.version, installed.version, entry.name);
      assert.equal(entry.version, debian.replace(/-[^-]*$/, ''));
    }
    const traced = report.layers.traced.find((d: { name: string }) => d.name === 'brotlidec');
    assert.equal(traced.systemVersion, debian);
    assert.equal(traced.id, 'libbrotli1');
  });

  it('build tools are reported apart, with the paper-compatible figure beside', () => {
    assert.deepEqual(names(report.layers.declared), ['brotlidec', 'brotlienc']);
    assert.deepEqual(names(report.buildTools.declared), ['git']);
    assert.deepEqual(names(report.buildTools.found), ['git', 'pkgconfig']);
    assert.deepEqual(report.gaps.phantom, []);
    const paper = report.alternativeMetrics.withBuildTools;
    assert.equal(paper.metrics.n1, 3);
    assert.equal(paper.metrics.n2, 4);
    assert.deepEqual(paper.gaps.phantom, ['git']);
  });

  it('target_link_libraries: a variable set by a find module is shown as written', () => {
    assert.deepEqual(report.otherDeclared.target_link_libraries.map((d: { name: string }) => d.name).sort(), ['${BROTLIENC_LIBRARIES}', 'brotlidec']);
  });

  it('--run reaches a program built in a subdirectory by its name; the default run is shown as typed', () => {
    assert.equal(report.run.command, 'brcodec');
    assert.equal(viaTool.run.success, true, viaTool.run.outputTail);
    assert.match(viaTool.run.outputTail, /^brotli decoder \d+\.\d+\.\d+$/m);
    assert.equal(report.run.env.ENVPROOF_BUILD_DIR, path.dirname(report.run.argv[0]));
    assert.ok(viaTool.run.env.PATH.split(':').includes(`${viaTool.run.env.ENVPROOF_BUILD_DIR}/tools`));
    assert.deepEqual(names(viaTool.layers.traced), ['brotlidec']);
  });
});

describe('several executables and none to choose', () => {
  it('the hint names commands that work with --run: the programs by name, each on its PATH', () => {
    const model: Codemodel = {
      projectName: 'suite',
      buildDir: '/b',
      targets: ['/b/alpha', '/b/tools/beta'].map((artifact) => ({
        name: path.basename(artifact),
        type: 'EXECUTABLE',
        artifacts: [artifact],
        buildSubdir: '.',
        external: false,
        linkLibraries: [],
      })),
    };
    assert.throws(
      () => chooseExecutable(model, (a) => path.basename(a)),
      (err: any) => /several executables \(alpha, beta\)/.test(err.message) && /--run "alpha" \(built: alpha, beta; each is on the PATH of --run\)/.test(err.hint),
    );
  });
});
