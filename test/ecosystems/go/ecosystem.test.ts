/**
 * The Go module end to end with the real go command and the module proxy (pinned module versions), the real
 * linker, dpkg and the tracer: D1 from go.mod, D2 the build list, the build, the traced run, D3 from the binary's
 * build information and the shared libraries it loaded. Expected sets are written by hand from the fixtures and
 * the published go.mod files of the modules (rsc.io/quote v1.5.2 requires rsc.io/sampler v1.3.0, which requires
 * golang.org/x/text v0.0.0-20170915032832-14c0d48ead0c).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StepFailedError } from '../../../src/core/errors.js';
import { goEcosystem } from '../../../src/ecosystems/go/index.js';
import { debianUpstreamVersion } from '../../../src/ecosystems/cpp/dpkg.js';
import type { AttributionResult, AuditContext, InstallResult } from '../../../src/ecosystems/types.js';
import { classifyStepFailure } from '../../../src/protocol/classify.js';
import { traceRun } from '../../../src/trace/index.js';
import { requires } from '../../helpers/requires.js';
import { FIXTURES, fixtureContext, hostGoVersion, removeTempDirs } from './helpers.js';

after(removeTempDirs);

const names = (deps: readonly { name: string }[] | undefined) => [...new Set((deps ?? []).map((d) => d.name))].sort();
const GO = requires('the go command', hostGoVersion() !== undefined);
const TEXT = 'golang.org/x/text';

interface Traced {
  ctx: AuditContext;
  install: InstallResult;
  attribution: AttributionResult;
  stdout: string;
  exitCode: number | null;
  argv: string[];
}

async function buildAndTrace(fixture: string): Promise<Traced> {
  const ctx = await fixtureContext(fixture);
  const install = await goEcosystem.install(ctx);
  await goEcosystem.build!(ctx, install);
  const run = await goEcosystem.defaultRun(ctx, install);
  const trace = await traceRun(ctx.sandbox, { argv: run.argv, cwd: ctx.projectDir, env: run.env, timeoutMs: 60_000, network: false });
  const attribution = await goEcosystem.attribute(trace.files, ctx, install);
  return { ctx, install, attribution, stdout: trace.run.stdout, exitCode: trace.run.exitCode, argv: run.argv };
}

async function failure(fixture: string, step: 'install' | 'build'): Promise<StepFailedError> {
  const ctx = await fixtureContext(fixture);
  try {
    const install = await goEcosystem.install(ctx);
    if (step === 'install') assert.fail('the install succeeded');
    await goEcosystem.build!(ctx, install);
    assert.fail('the build succeeded');
  } catch (err) {
    if (!(err instanceof StepFailedError)) throw err;
    assert.equal(err.step, step);
    return err;
  }
}

describe('Go: a phantom, hidden modules and a replace to a local directory', GO, () => {
  let r: Traced;
  before(async () => {
    r = await buildAndTrace('modules');
  });

  it('D1: the require lines, the local replacement skipped and counted as the project itself', async () => {
    const declared = await goEcosystem.extractDeclared(path.join(FIXTURES, 'modules'));
    assert.deepEqual(declared.declared.map((d) => `${d.name}@${d.version}`), ['github.com/google/uuid@v1.6.0', 'rsc.io/quote@v1.5.2']);
    assert.deepEqual(declared.skipped.map((s) => [s.raw, s.reason]), [['require example.com/greet v0.0.0', 'local-path']]);
    assert.deepEqual(declared.own, ['example.com/envproof/modules', 'example.com/greet']);
    assert.ok(declared.notes.some((n) => /no go\.sum/.test(n)));
  });

  it('D2: the build list, main module left out, with the versions minimal version selection chose', () => {
    const versions = Object.fromEntries(r.install.installed.map((d) => [d.name, d.version]));
    assert.deepEqual(versions, {
      'example.com/greet': undefined,
      'github.com/google/uuid': 'v1.6.0',
      [TEXT]: 'v0.0.0-20170915032832-14c0d48ead0c',
      'rsc.io/quote': 'v1.5.2',
      'rsc.io/sampler': 'v1.3.0',
    });
    assert.deepEqual(r.install.own?.sort(), ['example.com/envproof/modules', 'example.com/greet']);
  });

  it('builds the main package at the module root and runs the binary', () => {
    assert.equal(path.basename(r.argv[0]!), 'modules');
    assert.equal(r.exitCode, 0);
    assert.match(r.stdout, /^hello from modules\nAhoy, world!\n$/);
  });

  it('D3: the modules linked into the binary, the unused uuid not among them', () => {
    assert.deepEqual(names(r.attribution.traced), ['example.com/greet', TEXT, 'rsc.io/quote', 'rsc.io/sampler']);
    const greet = r.attribution.traced.find((d) => d.name === 'example.com/greet');
    assert.equal(greet?.id, 'example.com/greet => ./greet');
    assert.deepEqual(r.attribution.evidence['rsc.io/quote'], [r.argv[0]]);
    assert.deepEqual(r.attribution.alternatives?.sharedLibraries, []);
  });

  it('the build information agrees with what the go command itself reports of the binary', () => {
    const text = execFileSync('go', ['version', '-m', r.argv[0]!], { encoding: 'utf8' });
    const deps = [...text.matchAll(/^\tdep\t(\S+)\t/gm)].map((m) => m[1]).sort();
    assert.deepEqual(deps, names(r.attribution.traced));
  });

  it('--run names the built program bare', async () => {
    const run = goEcosystem.userRun('modules', r.ctx, r.install);
    const trace = await traceRun(r.ctx.sandbox, { argv: run.argv, cwd: r.ctx.projectDir, env: run.env, timeoutMs: 60_000, network: false });
    assert.equal(trace.run.exitCode, 0);
    assert.equal(trace.run.stdout, r.stdout);
    assert.deepEqual(names((await goEcosystem.attribute(trace.files, r.ctx, r.install)).traced), names(r.attribution.traced));
  });
});

describe('Go: cgo linking zlib', GO, () => {
  let r: Traced;
  before(async () => {
    r = await buildAndTrace('cgo-zlib');
  });

  it('D3 holds the shared library the run loaded, owned by its Debian package; no module', () => {
    assert.equal(r.exitCode, 0);
    const zlib = debianUpstreamVersion(execFileSync('dpkg-query', ['-W', '-f', '${Version}', 'zlib1g'], { encoding: 'utf8' }));
    assert.equal(r.stdout.trim(), `zlib ${zlib}`);
    assert.deepEqual(r.install.installed, []);
    assert.deepEqual(names(r.attribution.traced), ['z']);
    assert.equal(r.attribution.traced[0]?.id, 'zlib1g');
    assert.equal(r.attribution.traced[0]?.version, zlib);
    assert.match(r.attribution.evidence.z?.[0] ?? '', /\/libz\.so\.1/);
    assert.deepEqual(r.attribution.alternatives?.modules, []);
  });
});

describe('Go: failures and their classes', GO, () => {
  it('a module the proxy does not have: no-such-package at install, a fetch failure for the protocol', async () => {
    const err = await failure('no-such-module', 'install');
    assert.equal(err.failureClass, 'no-such-package');
    assert.match(err.message, /github\.com\/envproof-nonexistent\/nothing-here/);
    assert.equal(classifyStepFailure(err.step, err.failureClass, err.output), 'fetch-failure');
  });

  it('a syntax error: the build fails, and the protocol calls it a code bug', async () => {
    const err = await failure('syntax-error', 'build');
    assert.match(err.output, /main\.go:6:\d+: syntax error/);
    assert.equal(classifyStepFailure(err.step, err.failureClass, err.output), 'code-bug');
  });

  it('a go line newer than the toolchain: a clear build-configuration error, no toolchain download', async () => {
    const err = await failure('too-new', 'install');
    assert.equal(err.failureClass, 'build-configuration');
    assert.match(err.message, /go\.mod requires go >= 1\.99, and the environment's toolchain is go 1\.\d+\.\d+ \(GOTOOLCHAIN=local/);
    assert.equal(classifyStepFailure(err.step, err.failureClass, err.output), 'build-configuration');
  });
});
