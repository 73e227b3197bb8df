/**
 * `envproof audit` on JavaScript fixtures, end to end with the real npm and strace:
 * - workspaces: the project's own packages (the root and its workspace, which npm links into node_modules) are
 *   counted by npm and by the trace, and the audit removes them from every layer;
 * - nested-versions: the layer headers count name@version entries, the metrics count names, and the report
 *   shows both. By hand: debug@2.6.9 depends on ms 2.0.0 exactly, the project on ms@2.1.3, so D2 holds three
 *   entries of two names.
 * - missing: main.js:2 requires node-fetch, which the fixture neither declares nor installs (it has no
 *   dependencies at all, so npm downloads nothing), and the run fails on it; test/main.test.js:2 requires mocha and
 *   lib/format.spec.js:1 chai, development code by directory and by name.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { javascriptEcosystem as js } from '../../../src/ecosystems/javascript/index.js';
import type { AttributionResult, InstallResult } from '../../../src/ecosystems/types.js';
import { traceRun } from '../../../src/trace/index.js';
import { auditJson as audit, runCli } from '../../helpers/cli.js';
import type { NpmInstallDetails } from '../../../src/ecosystems/javascript/npm-tree.js';
import { FIXTURES, workspace, type Workspace } from './helpers.js';

const names = (deps: readonly { name: string }[] | null) => [...new Set((deps ?? []).map((d) => d.name))].sort();

const auditJson = (fixture: string, ...extra: string[]) => audit(path.join(FIXTURES, fixture), ...extra);

describe('workspaces: the project is never its own dependency', () => {
  let ws: Workspace;
  let install: InstallResult<NpmInstallDetails>;
  let attribution: AttributionResult;
  before(async () => {
    ws = await workspace({ fixture: 'workspaces' });
    install = await js.install(ws.ctx);
    const run = js.userRun('greet', ws.ctx, install);
    const trace = await traceRun(ws.ctx.sandbox, { ...run, cwd: ws.projectDir, timeoutMs: 60_000, network: false });
    assert.equal(trace.run.exitCode, 0, trace.run.stderr);
    attribution = await js.attribute(trace.files, ws.ctx, install);
  });
  after(() => ws?.dispose());

  it('npm and the trace both count the workspace package, which is why the audit must remove it', async () => {
    assert.deepEqual(names(install.installed), ['@ws-app/greet', 'ms']);
    assert.deepEqual(names(attribution.traced), ['@ws-app/greet', 'ms']);
    const declared = await js.extractDeclared(ws.projectDir);
    assert.deepEqual(declared.own, ['@ws-app/greet', 'ws-app']);
  });

  it('the audit: no layer holds the root or the workspace, whether run by the root bin or the workspace bin', () => {
    for (const extra of [[], ['--run', 'greet']]) {
      const { status, report } = auditJson('workspaces', ...extra);
      assert.deepEqual(report.ownPackages, ['@ws-app/greet', 'ws-app']);
      assert.deepEqual(names(report.layers.declared), ['ms']);
      assert.deepEqual(names(report.layers.installed), ['ms']);
      assert.deepEqual(names(report.layers.traced), ['ms']);
      assert.deepEqual(report.gaps.hidden, []);
      assert.equal(report.evidence['@ws-app/greet'], undefined);
      assert.equal(status, 0);
    }
  });
});

describe('missing: required by the code, installed by nothing', () => {
  it('reports node-fetch at main.js:2 with the run\'s own error line, and the tests\' packages apart', () => {
    const { report, status } = auditJson('missing');
    const missing = Object.fromEntries(report.findings.filter((f: any) => f.kind === 'missing').map((f: any) => [f.name, f]));
    assert.deepEqual(Object.keys(missing).sort(), ['chai', 'mocha', 'node-fetch']);
    assert.deepEqual(missing['node-fetch'].location, { file: 'main.js', line: 2 });
    assert.deepEqual(missing['node-fetch'].importedAt, ['main.js:2']);
    assert.match(missing['node-fetch'].runError, /^Error: Cannot find module 'node-fetch'/);
    assert.deepEqual([missing.mocha.importedAt, missing.mocha.developmentImports], [undefined, ['test/main.test.js:2']]);
    assert.deepEqual([missing.chai.importedAt, missing.chai.developmentImports], [undefined, ['lib/format.spec.js:1']]);
    assert.equal(report.run.success, false);
    assert.equal(status, 1);
  });
});

describe('nested-versions: layer counts and metric counts', () => {
  let json: { report: any };
  let text: string;
  before(() => {
    json = auditJson('nested-versions');
    text = runCli(['audit', path.join(FIXTURES, 'nested-versions'), '--sandbox', 'host', '-q', '--verbose']).stdout;
  });

  it('the JSON gives both counts; the metrics use names', () => {
    const { report } = json;
    assert.deepEqual(report.layerCounts.installed, { entries: 3, names: 2 });
    assert.deepEqual(report.layerCounts.traced, { entries: 3, names: 2 });
    assert.deepEqual(report.layerCounts.declared, { entries: 2, names: 2 });
    assert.equal(report.layers.installed.length, 3);
    assert.equal(report.metrics.n2, 2);
    assert.equal(report.metrics.inflation, 1);
  });

  it('the text headers show both where they differ and say which the metrics use', () => {
    assert.match(text, /D1 declared \(2\)\s+D2 installed \(3 entries, 2 names\)\s+D3 traced \(3 entries, 2 names\)/);
    assert.match(text, /the metrics count names/);
    assert.match(text, /Metrics \(over distinct names: n1 2, n2 2, n3 2\)/);
  });

  it('the run line shows the command as a user would type it; --verbose adds the full one', () => {
    assert.equal(json.report.run.command, 'node cli.js');
    assert.match(text, /^Run: node cli\.js {2}\(/m);
    assert.match(text, /^ {2}full command line: node \/\S+\/project\/cli\.js$/m);
  });
});
