// tier: quick
/**
 * The pure parts behind the hidden split, missing and discovery findings: development sites, the chain through the
 * package graph, the run's error line, a jar's discovery rule, the hidden split itself, and how --fail-on counts
 * each finding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildFindings, failingKinds, failOnKind } from '../../src/audit/findings.js';
import { dependencyChain, isDevelopmentSite, missingModuleLine, nameGraph, siteLocation } from '../../src/audit/import-sites.js';
import type { Finding } from '../../src/audit/report.js';
import { jarDiscovery } from '../../src/ecosystems/java/discovery.js';

describe('import sites', () => {
  it('tells development code by a directory of its path, or by a test file\'s name', () => {
    assert.equal(isDevelopmentSite('tests/test_models.py:1'), true);
    assert.equal(isDevelopmentSite('src/pkg/__tests__/a.test.js:3'), true);
    assert.equal(isDevelopmentSite('docs/conf.py:2'), true);
    assert.equal(isDevelopmentSite('examples/demo.go:9'), true);
    assert.equal(isDevelopmentSite('llm/models.py:2'), false);
    assert.equal(isDevelopmentSite('tests.py:1'), false, 'a file named tests.py is no tests directory');
    assert.equal(isDevelopmentSite('src/contest/x.py:1'), false);
    // Test files by the names their test runners look for: go test's, and Jest's, Vitest's and Mocha's usual ones.
    assert.equal(isDevelopmentSite('server/handler_test.go:4'), true);
    assert.equal(isDevelopmentSite('src/app.test.js:1'), true);
    assert.equal(isDevelopmentSite('src/app.spec.tsx:1'), true);
    assert.equal(isDevelopmentSite('src/latest.go:1'), false, 'a name ending in test without the _test.go form');
    assert.equal(isDevelopmentSite('src/test.js:1'), false);
  });

  it('reads file:line, and a site without a line as the file', () => {
    assert.deepEqual(siteLocation('llm/models.py:2'), { file: 'llm/models.py', line: 2 });
    assert.deepEqual(siteLocation('target/classes/demo/App.class'), { file: 'target/classes/demo/App.class' });
    assert.deepEqual(siteLocation('a.py:0'), { file: 'a.py' });
  });

  it('finds the shortest chain from a declared package, by name', () => {
    const graph = nameGraph([
      { name: 'pandas', version: '2.2.3', dependsOn: ['numpy@2.1.3', 'python-dateutil@2.9.0.post0'] },
      { name: 'python-dateutil', version: '2.9.0.post0', dependsOn: ['six@1.16.0'] },
      { name: 'numpy', version: '2.1.3', dependsOn: [] },
      { name: 'six', version: '1.16.0', dependsOn: [] },
      { name: 'other', version: '1', dependsOn: ['six@1.16.0'] },
    ]);
    assert.deepEqual(dependencyChain('six', ['pandas'], graph), ['pandas', 'python-dateutil', 'six']);
    assert.deepEqual(dependencyChain('six', ['pandas', 'other'], graph), ['other', 'six'], 'the shortest one');
    assert.equal(dependencyChain('six', ['numpy'], graph), undefined);
    assert.equal(dependencyChain('pandas', ['pandas'], graph), undefined, 'a declared package has no chain');
  });

  it('finds the line of a failed run that says the module is missing', () => {
    const python = 'Traceback (most recent call last):\n  File "cli.py", line 3, in <module>\n    import httpx\nModuleNotFoundError: No module named \'httpx\'\n';
    assert.equal(missingModuleLine([python], 'httpx'), "ModuleNotFoundError: No module named 'httpx'");
    assert.equal(missingModuleLine(["Error: Cannot find module 'chalk'\nRequire stack:"], 'chalk'), "Error: Cannot find module 'chalk'");
    assert.equal(missingModuleLine([python], 'click'), undefined);
    assert.equal(missingModuleLine(["print('httpx')"], 'httpx'), undefined, 'the name alone is not an error');
  });
});

describe('Java discovery', () => {
  it('sees service providers and slf4j 1 bindings, nothing else', () => {
    assert.deepEqual(jarDiscovery('x.jar', ['META-INF/', 'META-INF/services/', 'META-INF/services/javax.imageio.spi.ImageReaderSpi']), {
      rule: 'java-service-provider',
      evidence: 'x.jar provides javax.imageio.spi.ImageReaderSpi (META-INF/services)',
    });
    assert.equal(jarDiscovery('b.jar', ['org/slf4j/impl/StaticLoggerBinder.class'])?.rule, 'slf4j-binding');
    assert.equal(jarDiscovery('c.jar', ['META-INF/MANIFEST.MF', 'org/apache/commons/lang3/StringUtils.class']), undefined);
  });
});

describe('--fail-on kinds', () => {
  const f = (rest: Partial<Finding>): Finding => ({ kind: 'hidden', name: 'x', advice: '', ...rest });
  it('counts direct hidden ones for hidden, transitive ones for hidden-transitive, development-only missing for none', () => {
    assert.equal(failOnKind(f({ hidden: 'direct' })), 'hidden');
    assert.equal(failOnKind(f({})), 'hidden', 'unclassified counts as direct');
    assert.equal(failOnKind(f({ hidden: 'transitive' })), 'hidden-transitive');
    assert.equal(failOnKind(f({ kind: 'missing', importedAt: ['a.py:1'] })), 'missing');
    assert.equal(failOnKind(f({ kind: 'missing', developmentImports: ['tests/a.py:1'] })), undefined);
    const findings = [f({ hidden: 'transitive' }), f({ kind: 'missing', developmentImports: ['tests/a.py:1'] })];
    assert.deepEqual(failingKinds(findings, true, ['phantom', 'hidden', 'missing', 'run']), []);
    assert.deepEqual(failingKinds(findings, true, ['hidden-transitive']), ['hidden-transitive']);
  });
});

describe('the hidden split', () => {
  const graph = new Map([['quote', ['sampler']], ['sampler', []], ['own-dep', []]]);
  const input = (extra: object) => ({
    manifest: 'go.mod',
    declared: [{ name: 'quote' }],
    installed: [],
    traced: [],
    gaps: { phantom: [], hidden: ['sampler', 'own-dep'], bloat: [], transitive: [] },
    unpinned: [],
    locations: {},
    graph,
    ...extra,
  });
  const hidden = (findings: Finding[]) => Object.fromEntries(findings.filter((f) => f.kind === 'hidden').map((f) => [f.name, f]));

  it('direct at the import, transitive with the chain; tests\' imports are no runtime use', () => {
    const h = hidden(buildFindings(input({ staticImports: { method: '', notes: [], imports: { 'own-dep': ['cmd/a.go:4'], sampler: ['tests/x_test.go:3'] } } })));
    assert.equal(h['own-dep']!.hidden, 'direct');
    assert.deepEqual(h['own-dep']!.location, { file: 'cmd/a.go', line: 4 });
    assert.equal(h.sampler!.hidden, 'transitive');
    assert.deepEqual(h.sampler!.via, ['quote', 'sampler']);
    assert.deepEqual(h.sampler!.developmentImports, ['tests/x_test.go:3']);
  });

  it('leaves a hidden one unclassified where the manifest must list it anyway, or without static imports', () => {
    const go = hidden(buildFindings(input({ staticImports: { method: '', notes: [], imports: {}, unlistedAdvice: 'go.mod must list every module' } })));
    assert.equal(go.sampler!.hidden, undefined);
    assert.deepEqual(go.sampler!.via, ['quote', 'sampler']);
    assert.match(go.sampler!.advice, /go\.mod must list every module/);
    const none = hidden(buildFindings(input({})));
    assert.equal(none.sampler!.hidden, undefined);
    assert.match(none.sampler!.advice, /declare it \(envproof fix\)/);
  });
});
