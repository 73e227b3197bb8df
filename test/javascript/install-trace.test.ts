/**
 * Real `npm ci` / `npm install` of the fixtures, `npm ls`, and a real strace run of each fixture's
 * default command, attributed to packages. One install per fixture, shared by its assertions.
 *
 * Expected sets are derived by hand from the registry metadata (`npm view <pkg>@<version> dependencies`):
 *   chalk@4.1.2        → ansi-styles ^4.1.0 (4.3.0 newest 4.x), supports-color ^7.1.0 (7.2.0 newest 7.x)
 *   ansi-styles@4.3.0  → color-convert ^2.0.1 (2.0.1)  → color-name ~1.1.4 (1.1.4)
 *   supports-color@7.2.0 → has-flag ^4.0.0 (4.0.0)
 *   left-pad@1.3.0, ms@2.1.3, ms@2.0.0, @sindresorhus/is@4.6.0, is-number@6.0.0: no dependencies
 *   debug@2.6.9        → ms 2.0.0 (exact: nested, since the top level holds ms@2.1.3)
 *   is-odd@3.0.1       → is-number ^6.0.0 (6.0.0)
 * and D3 from reading the packages' sources: ansi-styles@4.3.0 requires color-convert only lazily (for
 * the ansi/ansi256/ansi16m converters, which chalk.bold and styles.green do not touch); chalk requires
 * ansi-styles and supports-color, which requires has-flag; debug's node entry requires ./debug, which
 * requires ms; @sindresorhus/is and left-pad require nothing.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nameSet } from '../../src/core/names.js';
import { javascriptEcosystem as js } from '../../src/ecosystems/javascript/index.js';
import type { NpmTreeNode, NpmInstallDetails } from '../../src/ecosystems/javascript/npm-tree.js';
import type { AttributionResult, InstallResult, RunChoice } from '../../src/ecosystems/types.js';
import { gapSets } from '../../src/metrics/project.js';
import { traceRun } from '../../src/trace/index.js';
import type { TraceResult } from '../../src/trace/types.js';
import { pins, workspace, type Workspace } from './helpers.js';

interface Audited {
  ws: Workspace;
  install: InstallResult<NpmInstallDetails>;
  run: RunChoice;
  trace: TraceResult;
  d3: AttributionResult;
}

/** Installs a fixture, then traces its default command and attributes what it opened. */
async function audit(fixture: string): Promise<Audited> {
  const ws = await workspace({ fixture });
  const install = await js.install(ws.ctx);
  const run = await js.defaultRun(ws.ctx, install);
  const trace = await traceRun(ws.ctx.sandbox, {
    ...run,
    cwd: ws.projectDir,
    timeoutMs: 60_000,
    network: false,
  });
  const d3 = await js.attribute(trace.files, ws.ctx, install);
  return { ws, install, run, trace, d3 };
}

function findNode(node: NpmTreeNode, name: string, version: string): NpmTreeNode | undefined {
  if (node.name === name && node.version === version) return node;
  for (const child of node.dependencies) {
    const found = findNode(child, name, version);
    if (found) return found;
  }
  return undefined;
}

describe('chalk-hidden: npm ci from a lockfile, an unused and a hidden dependency', () => {
  let a: Audited;
  before(async () => {
    a = await audit('chalk-hidden');
  });
  after(() => a?.ws.dispose());

  it('installs with npm ci because a lockfile exists', () => {
    assert.equal(a.install.commands[0], 'npm ci --no-audit --no-fund');
    assert.equal(a.install.commands[1], 'npm ls --all --json --long');
  });

  it('D2 is the whole tree, including the unused left-pad', () => {
    assert.deepEqual(pins(a.install.installed), [
      'ansi-styles@4.3.0',
      'chalk@4.1.2',
      'color-convert@2.0.1',
      'color-name@1.1.4',
      'has-flag@4.0.0',
      'left-pad@1.3.0',
      'supports-color@7.2.0',
    ]);
  });

  it('runs package.json main', () => {
    assert.equal(a.run.reason, 'package.json main');
    assert.deepEqual(a.run.argv, ['node', path.join(a.ws.projectDir, 'main.js')]);
  });

  it('D3: what the program loaded, and not color-convert, which ansi-styles loads lazily', () => {
    assert.equal(a.trace.run.exitCode, 0, a.trace.run.stderr);
    assert.deepEqual(pins(a.d3.traced), ['ansi-styles@4.3.0', 'chalk@4.1.2', 'has-flag@4.0.0', 'supports-color@7.2.0']);
    assert.ok(a.d3.evidence.chalk?.some((f) => f.endsWith('/node_modules/chalk/source/index.js')), JSON.stringify(a.d3.evidence.chalk));
  });

  it('gaps: left-pad is phantom; ansi-styles, has-flag, supports-color are hidden', async () => {
    const d1 = nameSet((await js.extractDeclared(a.ws.projectDir)).declared);
    const gaps = gapSets(d1, nameSet(a.install.installed), nameSet(a.d3.traced));
    assert.deepEqual(gaps.phantom, ['left-pad']);
    assert.deepEqual(gaps.hidden, ['ansi-styles', 'has-flag', 'supports-color']);
    assert.deepEqual(gaps.bloat, ['color-convert', 'color-name', 'left-pad']);
  });
});

describe('nested-versions: two versions of ms, one nested under debug', () => {
  let a: Audited;
  before(async () => {
    a = await audit('nested-versions');
  });
  after(() => a?.ws.dispose());

  it('installs with npm install (no lockfile)', () => {
    assert.match(a.install.commands[0] ?? '', /^npm install --no-audit /);
  });

  it('D2 holds both copies of ms as distinct entries', () => {
    assert.deepEqual(pins(a.install.installed), ['debug@2.6.9', 'ms@2.0.0', 'ms@2.1.3']);
    const tree = a.install.details?.tree as NpmTreeNode;
    assert.equal(findNode(tree, 'ms', '2.0.0')?.path, 'node_modules/debug/node_modules/ms');
    assert.equal(findNode(tree, 'ms', '2.1.3')?.path, 'node_modules/ms');
  });

  it('runs the first of the two bin entries and says so', () => {
    assert.equal(a.run.reason, 'package.json bin "nested-demo" (the first of 2 entries)');
    assert.deepEqual(a.run.argv, ['node', path.join(a.ws.projectDir, 'cli.js')]);
  });

  it('D3 has both versions of ms (one name in the metrics)', () => {
    assert.equal(a.trace.run.exitCode, 0, a.trace.run.stderr);
    assert.equal(a.trace.run.stdout.trim(), '2m');
    assert.deepEqual(pins(a.d3.traced), ['debug@2.6.9', 'ms@2.0.0', 'ms@2.1.3']);
    assert.deepEqual([...nameSet(a.d3.traced)].sort(), ['debug', 'ms']);
    const nested = a.d3.traced.find((d) => d.version === '2.0.0');
    assert.equal(nested?.source, 'node_modules/debug/node_modules/ms');
  });
});

describe('scoped-dev: a scoped package, an npm: alias, an unused devDependency', () => {
  let a: Audited;
  before(async () => {
    a = await audit('scoped-dev');
  });
  after(() => a?.ws.dispose());

  it('D2 includes the devDependency and its dependency (every node of the tree), the alias under its key', () => {
    assert.deepEqual(pins(a.install.installed), ['@sindresorhus/is@4.6.0', 'is-number@6.0.0', 'is-odd@3.0.1', 'pad@1.3.0']);
    assert.equal(a.install.installed.find((d) => d.name === 'pad')?.id, 'npm:left-pad@1.3.0');
    const tree = a.install.details?.tree as NpmTreeNode;
    assert.equal(findNode(tree, 'is-odd', '3.0.1')?.dev, true);
    assert.equal(findNode(tree, '@sindresorhus/is', '4.6.0')?.dev, undefined);
  });

  it('runs the start script through sh, not npm', () => {
    assert.match(a.run.reason, /^package\.json scripts\.start$/);
    assert.equal(a.run.argv[0], 'sh');
    assert.ok(a.run.argv[2]?.endsWith('; node src/start.js'));
    assert.ok(!a.trace.execs.some((e) => /\/npm(-cli\.js)?$/.test(e)), a.trace.execs.join('\n'));
  });

  it('D3: the scoped package and the alias (by its key), not the devDependency', () => {
    assert.equal(a.trace.run.exitCode, 0, a.trace.run.stderr);
    assert.equal(a.trace.run.stdout, '    number\n');
    assert.deepEqual(pins(a.d3.traced), ['@sindresorhus/is@4.6.0', 'pad@1.3.0']);
    assert.equal(a.d3.traced.find((d) => d.name === 'pad')?.id, 'npm:left-pad@1.3.0');
  });
});

describe('link-script: a file: dependency with a postinstall script', () => {
  let a: Audited;
  before(async () => {
    a = await audit('link-script');
  });
  after(() => a?.ws.dispose());

  it('npm ran the unreviewed postinstall (npm 11 warns, and the warning is kept)', () => {
    assert.equal(a.trace.run.exitCode, 0, a.trace.run.stderr);
    assert.equal(a.trace.run.stdout, 'built by postinstall\n');
    assert.deepEqual(a.install.details?.unreviewedInstallScripts, ['scripted-dep@1.0.0 (postinstall)']);
  });

  it('D2 and D3 hold the linked package, though node loads it by its real path outside node_modules', () => {
    assert.deepEqual(pins(a.install.installed), ['scripted-dep@1.0.0']);
    assert.deepEqual(pins(a.d3.traced), ['scripted-dep@1.0.0']);
    assert.ok(a.d3.evidence['scripted-dep']?.includes(path.join(a.ws.projectDir, 'scripted-dep/index.js')), JSON.stringify(a.d3.evidence));
  });
});

describe('install failures are classified, with npm\'s own message', () => {
  const cases = [
    { fixture: 'fail-no-such-package', cls: 'no-such-package', code: /^npm install failed \(E404\): /, text: /404 Not Found - GET .*envproof-fixture-no-such-package-7f3c/ },
    { fixture: 'fail-no-matching-version', cls: 'no-matching-version', code: /^npm install failed \(ETARGET\): /, text: /No matching version found for is-number@99\.0\.0/ },
    // The project's own .npmrc names a registry that refuses connections: the project's failure, not infrastructure.
    { fixture: 'fail-network', cls: 'fetch-failure', code: /^npm install failed \(ECONNREFUSED\): /, text: /ECONNREFUSED 127\.0\.0\.1:9/ },
    // The same refusal when that host is the registry envproof is configured with: the registry itself is down.
    { fixture: 'fail-network', registry: 'http://127.0.0.1:9/', cls: 'registry-unreachable', code: /^npm install failed \(ECONNREFUSED\): /, text: /ECONNREFUSED 127\.0\.0\.1:9/ },
    { fixture: 'fail-native-build', cls: 'native-build-failure', code: /^npm install failed \(exit code 1\): /, text: /command sh -c node-gyp rebuild/ },
    { fixture: 'fail-install-script', cls: 'native-build-failure', code: /^npm install failed \(exit code 3\): /, text: /command sh -c node -e/ },
  ];
  for (const c of cases) {
    it(`${c.fixture}${c.registry ? ` with ENVPROOF_REGISTRY_NPM=${c.registry}` : ''} → ${c.cls}`, async () => {
      const ws = await workspace({ fixture: c.fixture });
      if (c.registry) process.env.ENVPROOF_REGISTRY_NPM = c.registry;
      try {
        const err = await js.install(ws.ctx).then(
          () => assert.fail('the install should fail'),
          (e: unknown) => e,
        );
        assert.ok(err && typeof err === 'object' && 'failureClass' in err, String(err));
        const failure = err as { step: string; failureClass: string; message: string; output: string };
        assert.equal(failure.step, 'install');
        assert.equal(failure.failureClass, c.cls, failure.output);
        assert.match(failure.message, c.code);
        assert.match(failure.message, c.text);
      } finally {
        delete process.env.ENVPROOF_REGISTRY_NPM;
        await ws.dispose();
      }
    });
  }
});
