// tier: quick
/**
 * The C++ module end to end with the real CMake, GCC, dpkg and strace: configure (D2), build, run under
 * the tracer, attribute (D3 runtime and build-time). Expected sets are written by hand from the fixtures.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StepFailedError } from '../../../src/core/errors.js';
import { cppEcosystem } from '../../../src/ecosystems/cpp/index.js';
import type { AttributionResult, AuditContext, InstallResult, RunChoice } from '../../../src/ecosystems/types.js';
import { traceRun } from '../../../src/trace/index.js';
import type { CmakeInstallDetails } from '../../../src/ecosystems/cpp/configure.js';
import { debianUpstreamVersion, fixtureContext, localGitRepo, localTarball, removeTempDirs } from './helpers.js';

after(removeTempDirs);

const names = (deps: readonly { name: string }[] | undefined) => [...new Set((deps ?? []).map((d) => d.name))].sort();

interface Traced {
  ctx: AuditContext;
  install: InstallResult<CmakeInstallDetails>;
  attribution: AttributionResult;
  stdout: string;
  exitCode: number | null;
  signal: string | null;
  argv: string[];
}

async function buildAndTrace(ctx: AuditContext): Promise<Traced> {
  const install = await cppEcosystem.install(ctx);
  await cppEcosystem.build?.(ctx, install);
  return traceAndAttribute(ctx, install, await cppEcosystem.defaultRun(ctx, install));
}

async function traceAndAttribute(ctx: AuditContext, install: InstallResult<CmakeInstallDetails>, run: RunChoice): Promise<Traced> {
  const trace = await traceRun(ctx.sandbox, {
    argv: run.argv,
    cwd: ctx.projectDir,
    env: run.env,
    timeoutMs: 60_000,
    network: false,
  });
  const attribution = await cppEcosystem.attribute(trace.files, ctx, install);
  return { ctx, install, attribution, stdout: trace.run.stdout, exitCode: trace.run.exitCode, signal: trace.run.signal, argv: run.argv };
}

describe('C++: zlib (runtime) and nlohmann_json (header-only)', () => {
  let r: Traced;
  before(async () => {
    r = await buildAndTrace(await fixtureContext('zlib-json'));
  });

  it('D2: what configure found, with the versions Debian installed', () => {
    assert.deepEqual(names(r.install.installed), ['nlohmann-json', 'zlib']);
    const byName = new Map(r.install.installed.map((d) => [d.name, d]));
    assert.equal(byName.get('zlib')?.version, debianUpstreamVersion('zlib1g-dev'));
    assert.equal(byName.get('nlohmann-json')?.version, debianUpstreamVersion('nlohmann-json3-dev'));
    assert.equal(byName.get('nlohmann-json')?.id, 'nlohmann_json');
  });

  it('runs the executable target from the File API codemodel', () => {
    assert.equal(path.basename(r.argv[0] ?? ''), 'zjson');
    assert.equal(r.exitCode, 0);
    assert.match(r.stdout, /"zlib":"\d+\.\d+/);
  });

  it('D3 runtime: only zlib (the C/C++ runtime excluded), named like the find_package and owned by zlib1g', () => {
    assert.deepEqual(names(r.attribution.traced), ['zlib']);
    assert.equal(r.attribution.traced[0]?.id, 'zlib1g');
    assert.ok(r.attribution.evidence.zlib?.some((f) => /\/libz\.so\.1/.test(f)));
    // The paper's own naming of the same runtime layer.
    assert.deepEqual(names(r.attribution.alternatives?.runtimeLibraryNames), ['z']);
  });

  it('--run names the built program bare; the shell it runs under adds nothing to D3', async () => {
    const viaRun = await traceAndAttribute(r.ctx, r.install, cppEcosystem.userRun('zjson', r.ctx, r.install));
    assert.equal(viaRun.exitCode, 0);
    assert.equal(viaRun.stdout, r.stdout);
    assert.deepEqual(names(viaRun.attribution.traced), ['zlib']);
  });

  it('D3 build-time: the header-only nlohmann_json appears only there', () => {
    assert.deepEqual(names(r.attribution.alternatives?.buildTime), ['nlohmann-json', 'zlib']);
    const json = r.attribution.alternatives?.buildTime?.find((d) => d.name === 'nlohmann-json');
    assert.equal(json?.id, 'nlohmann-json3-dev');
    assert.deepEqual(names(r.attribution.alternatives?.combined), ['nlohmann-json', 'zlib']);
  });
});

describe('C++: FetchContent from local git repositories, with a nested fetch', () => {
  let r: Traced;
  before(async () => {
    const shout = await localGitRepo('shout-lib', 'v0.1');
    const greet = await localGitRepo('greet-lib', 'v1.0', { SHOUT_REPO: shout });
    const banner = await localGitRepo('banner-lib', 'v2.0');
    r = await buildAndTrace(await fixtureContext('fetch', { GREET_REPO: greet, BANNER_REPO: banner }));
  });

  it('D2: the fetched project, its own fetch and the legacy populated content, with their tags', () => {
    assert.deepEqual(
      r.install.installed.map((d) => [d.name, d.version]),
      [
        ['banner', 'v2.0'],
        ['greet', 'v1.0'],
        ['shout', 'v0.1'],
      ],
    );
  });

  it('the program runs', () => {
    assert.equal(r.stdout.trim(), '== HELLO ENVPROOF! TWICE!');
  });

  it('D3: static and header-only fetched code leaves no runtime trace but shows at build time', () => {
    assert.deepEqual(names(r.attribution.traced), []);
    assert.deepEqual(
      r.attribution.alternatives?.buildTime?.map((d) => [d.name, d.version]),
      [
        ['banner', 'v2.0'],
        ['greet', 'v1.0'],
        ['shout', 'v0.1'],
      ],
    );
    assert.ok(r.attribution.evidence.greet?.some((f) => f.endsWith('/libgreet.a')));
    assert.ok(r.attribution.evidence.shout?.some((f) => f.endsWith('/_deps/shout-src/include/shout.hpp')));
  });
});

describe('C++: FetchContent of a shared library from a local tarball', () => {
  let r: Traced;
  before(async () => {
    const url = await localTarball('hello-shared-lib', 'hello-1.2.0.tar.gz');
    r = await buildAndTrace(await fixtureContext('fetch-shared', { HELLO_URL: url }));
  });

  it('D2: the fetched name with the version in the URL', () => {
    assert.deepEqual(r.install.installed.map((d) => [d.name, d.version]), [['hello', '1.2.0']]);
  });

  it('D3 runtime: the fetched shared library, loaded from the build tree, takes the FetchContent name', () => {
    assert.equal(r.stdout.trim(), 'hello from a shared library');
    assert.deepEqual(names(r.attribution.traced), ['hello']);
    assert.ok(r.attribution.evidence.hello?.some((f) => f.endsWith('/_deps/hello-build/libhello.so')));
  });
});

describe('C++: a pkg-config module', () => {
  let r: Traced;
  before(async () => {
    r = await buildAndTrace(await fixtureContext('pkgconfig'));
  });

  it('D2: the module pkg_check_modules found, with its version; PkgConfig apart, as a build tool', () => {
    assert.deepEqual(names(r.install.installed), ['zlib']);
    assert.deepEqual(names(r.install.buildTools), ['pkgconfig']);
    assert.equal(r.install.installed.find((d) => d.name === 'zlib')?.version, debianUpstreamVersion('zlib1g-dev'));
  });

  it('D3: the loaded libz.so.1 takes the pkg-config module name, so it meets D1', () => {
    assert.match(r.stdout, /^crc32=\d+$/m);
    assert.deepEqual(names(r.attribution.traced), ['zlib']);
  });
});

describe('C++: failures', () => {
  it('a find_package of a library that is not installed is a missing system library', async () => {
    const curlDev = spawnSync('sh', ['-c', "dpkg-query -W -f '${Package} ${Status}\\n' 'libcurl*-dev' 2>/dev/null | grep 'ok installed'"], { encoding: 'utf8' });
    assert.equal(curlDev.stdout, '', 'this fixture needs libcurl development headers to be absent (scripts/setup.sh never installs them)');
    const ctx = await fixtureContext('missing-lib');
    await assert.rejects(cppEcosystem.install(ctx), (err: unknown) => {
      assert.ok(err instanceof StepFailedError);
      assert.equal(err.step, 'configure');
      assert.equal(err.failureClass, 'missing-system-library');
      assert.match(err.message, /CURL/);
      assert.match(err.output, /Could NOT find CURL/);
      return true;
    });
  });

  for (const [fixture, subject] of [
    ['missing-config', 'EnvproofAbsentLib'],
    ['missing-pkgconfig', 'envproof-absent-module'],
  ] as const) {
    it(`${fixture}: a package CMake cannot find is a missing system library, named in the message`, async () => {
      const ctx = await fixtureContext(fixture);
      await assert.rejects(cppEcosystem.install(ctx), (err: unknown) => {
        assert.ok(err instanceof StepFailedError);
        assert.equal(err.failureClass, 'missing-system-library');
        assert.ok(err.message.endsWith(`: ${subject}`), err.message);
        return true;
      });
    });
  }

  it('a FetchContent source that cannot be cloned is a fetch failure', async () => {
    const ctx = await fixtureContext('fetch', { GREET_REPO: 'file:///nonexistent/envproof/no-such-repo.git', BANNER_REPO: 'file:///nonexistent/envproof/banner.git' });
    await assert.rejects(cppEcosystem.install(ctx), (err: unknown) => {
      assert.ok(err instanceof StepFailedError);
      assert.equal(err.failureClass, 'fetch-failure');
      return true;
    });
  });

  it('a compile error fails the build step', async () => {
    const ctx = await fixtureContext('build-fails');
    const install = await cppEcosystem.install(ctx);
    assert.deepEqual(install.installed, []);
    await assert.rejects(cppEcosystem.build!(ctx, install), (err: unknown) => {
      assert.ok(err instanceof StepFailedError);
      assert.equal(err.step, 'build');
      assert.equal(err.failureClass, 'build');
      assert.match(err.output, /undeclared_variable/);
      return true;
    });
  });

  it('a binary that crashes: its outcome is reported and what it loaded before is still attributed', async () => {
    const r = await buildAndTrace(await fixtureContext('crash'));
    assert.equal(r.signal ?? 'SIGABRT', 'SIGABRT');
    assert.notEqual(r.exitCode, 0);
    assert.match(r.stdout, /now crashing/);
    assert.deepEqual(names(r.attribution.traced), ['zlib']);
  });
});
