/**
 * Findings a user can act on (issue 22), on real installs and traced runs:
 * - hidden split: py-pandas imports only pandas, so numpy, python-dateutil, pytz and six (pandas' own dependencies,
 *   known from pandas' and dateutil's metadata) are transitive: information, exit 0. The same project with
 *   `import numpy` added makes numpy direct, located at that line, exit 1;
 * - missing: py-missing's llm_like/models.py:2 imports httpx, which nothing installs (the run crashes on it); the
 *   optional `ujson` import is no finding; tests/ importing pytest is a development import, apart;
 * - discovery: py-discovery's pytest-timeout is a pytest11 entry-point plug-in, tabulate is run with `python -m`:
 *   both kept, never removed by fix; java service-providers declares an ImageIO plug-in and an slf4j provider that
 *   no class imports (kept) beside commons-lang3 (removed).
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../helpers/cli.js';
import { plannedFix } from '../helpers/fix-plan.js';
import { assertValidSarif } from '../outputs/schemas.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

interface Audited {
  dir: string;
  status: number | null;
  report: any;
  reportFile: string;
}

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

/** Audits a copy of a fixture (edited by `edit` first), saving the JSON report beside it. */
async function audit(fixture: string, args: string[], edit?: (dir: string) => Promise<void>): Promise<Audited> {
  const root = await mkdtemp(path.join(tmpdir(), `envproof-advice-${path.basename(fixture)}-`));
  roots.push(root);
  const dir = path.join(root, path.basename(fixture));
  await cp(path.join(FIXTURES, fixture), dir, { recursive: true });
  await edit?.(dir);
  const r = await runCliAsync(['audit', dir, '--json', '--sandbox', 'host', '-q', ...args]);
  let report: any;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`audit of ${fixture} printed no JSON (exit ${r.status}):\n${r.stderr}`);
  }
  const reportFile = path.join(root, 'report.json');
  await writeFile(reportFile, r.stdout);
  return { dir, status: r.status, report, reportFile };
}

const NUMPY_MAIN = 'import pandas as pd\nimport numpy as np\n\nprint(pd.Series(np.arange(3)).sum())\n';

/**
 * Every audit of this file, started together before the first test (each mostly waits on its install) and awaited
 * by the describe that checks it.
 */
const AUDITS = {
  pandas: () => audit('py-pandas', []),
  pandasWithNumpy: () => audit('py-pandas', [], (dir) => writeFile(path.join(dir, 'main.py'), NUMPY_MAIN)),
  missing: () => audit('py-missing', ['--run', 'python cli.py']),
  discovery: () => audit('py-discovery', []),
  serviceProviders: () => audit('../../ecosystems/java/fixtures/service-providers', ['--run', 'java demo.App']),
};
const started = new Map<keyof typeof AUDITS, Promise<Audited>>();
before(() => {
  for (const [name, start] of Object.entries(AUDITS) as [keyof typeof AUDITS, () => Promise<Audited>][]) {
    const p = start();
    p.catch(() => {}); // its describe awaits it and fails with its error; not an unhandled rejection meanwhile
    started.set(name, p);
  }
});
const audited = (name: keyof typeof AUDITS) => started.get(name)!;

const byName = (a: Audited, kind: string) => Object.fromEntries(a.report.findings.filter((f: any) => f.kind === kind).map((f: any) => [f.name, f]));

async function sarifOf(a: Audited): Promise<any> {
  const out = path.join(path.dirname(a.reportFile), 'audit.sarif');
  await runCliAsync(['audit', '--from', a.reportFile, '-q', '--sarif', '--out', out], { cwd: a.dir });
  const log = JSON.parse(await readFile(out, 'utf8'));
  assertValidSarif(log);
  return log.runs[0];
}

describe('hidden: imported by the code, or loaded through other packages', () => {
  let only: Audited;
  let withNumpy: Audited;
  before(async () => {
    [only, withNumpy] = await Promise.all([audited('pandas'), audited('pandasWithNumpy')]);
  });

  it('keeps the paper\'s hidden set (D3 \\ D1) and its rate', () => {
    assert.deepEqual(only.report.gaps.hidden, ['numpy', 'python-dateutil', 'pytz', 'six']);
    assert.equal(only.report.metrics.hiddenRate, 4 / 5);
  });

  it('calls pandas\' own dependencies transitive, with the chain, and exits 0 by default', () => {
    const hidden = byName(only, 'hidden');
    assert.deepEqual(Object.keys(hidden).sort(), ['numpy', 'python-dateutil', 'pytz', 'six']);
    for (const f of Object.values(hidden) as any[]) {
      assert.equal(f.hidden, 'transitive', f.name);
      assert.match(f.advice, /declare it only if you import it/);
      assert.deepEqual(f.location, { file: 'requirements.txt' });
    }
    assert.deepEqual(hidden.numpy.via, ['pandas', 'numpy']);
    assert.deepEqual(hidden.pytz.via, ['pandas', 'pytz']);
    assert.deepEqual(hidden.six.via, ['pandas', 'python-dateutil', 'six']);
    assert.equal(only.status, 0, 'transitive hidden dependencies do not fail by default');
  });

  it('--fail-on hidden-transitive counts them', async () => {
    const r = await runCliAsync(['audit', '--from', only.reportFile, '-q', '--fail-on', 'hidden-transitive']);
    assert.equal(r.status, 1, r.stderr);
    const hiddenOnly = await runCliAsync(['audit', '--from', only.reportFile, '-q', '--fail-on', 'hidden']);
    assert.equal(hiddenOnly.status, 0, hiddenOnly.stderr);
  });

  it('calls numpy direct when main.py imports it: located at main.py:2, exit 1; the others stay transitive', async () => {
    const hidden = byName(withNumpy, 'hidden');
    assert.equal(hidden.numpy.hidden, 'direct');
    assert.deepEqual(hidden.numpy.location, { file: 'main.py', line: 2 });
    assert.deepEqual(hidden.numpy.importedAt, ['main.py:2']);
    assert.match(hidden.numpy.advice, /declare it \(envproof fix\)/);
    assert.equal(hidden.six.hidden, 'transitive');
    assert.equal(withNumpy.status, 1);
    const sarif = await sarifOf(withNumpy);
    const numpy = sarif.results.find((r: any) => r.properties.package === 'numpy');
    assert.equal(numpy.ruleId, 'hidden-direct');
    assert.equal(numpy.level, 'error');
    assert.equal(numpy.locations[0].physicalLocation.artifactLocation.uri, 'main.py');
    assert.equal(numpy.locations[0].physicalLocation.region.startLine, 2);
    const six = sarif.results.find((r: any) => r.properties.package === 'six');
    assert.equal(six.ruleId, 'hidden-transitive');
    assert.equal(six.level, 'note');
    const github = await runCliAsync(['audit', '--from', withNumpy.reportFile, '-q', '--format', 'github'], { cwd: withNumpy.dir });
    assert.match(github.stdout, /^::error file=main\.py,line=2,title=envproof hidden-direct::numpy /m);
    assert.match(github.stdout, /^::notice file=requirements\.txt,title=envproof hidden-transitive::six /m);
  });

  it('fix declares the imported one only', async () => {
    const r = await runCliAsync(['fix', '--from', withNumpy.reportFile, '--dry-run', '--json', '-q']);
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.deepEqual(result.applied.map((e: any) => `${e.kind} ${e.name}`), [`add numpy`]);
    assert.deepEqual(result.kept.map((k: any) => k.name).sort(), ['python-dateutil', 'pytz', 'six']);
  });

  it('fix --pin --remove-phantom --dry-run plans exactly: pin pandas (to the constraint\'s 2.2.3), add numpy only when imported', async () => {
    // requirements.txt is `-c constraints.txt` and a bare `pandas`; constraints.txt pins pandas 2.2.3 and numpy
    // 2.1.3. The transitive ones are never added; an addition goes at the end of the top file.
    const original = await readFile(path.join(only.dir, 'requirements.txt'), 'utf8');
    assert.equal(original, '-c constraints.txt\npandas\n');
    const plain = await plannedFix(only.reportFile, only.dir);
    assert.deepEqual(plain.edits, ['pin pandas 2.2.3']);
    assert.deepEqual(plain.after, { 'requirements.txt': '-c constraints.txt\npandas==2.2.3\n' });
    const imported = await plannedFix(withNumpy.reportFile, withNumpy.dir);
    assert.deepEqual(imported.edits, ['add numpy 2.1.3', 'pin pandas 2.2.3']);
    assert.deepEqual(imported.after, { 'requirements.txt': '-c constraints.txt\npandas==2.2.3\nnumpy==2.1.3\n' });
  });
});

describe('missing: imported by the code, provided by no installed package', () => {
  let a: Audited;
  before(async () => {
    a = await audited('missing');
  });

  it('reports httpx at llm_like/models.py:2 with the run\'s own error line, and fails', () => {
    const missing = byName(a, 'missing');
    assert.deepEqual(missing.httpx.location, { file: 'llm_like/models.py', line: 2 });
    assert.deepEqual(missing.httpx.importedAt, ['llm_like/models.py:2']);
    assert.equal(missing.httpx.runError, "ModuleNotFoundError: No module named 'httpx'");
    assert.equal(a.report.run.success, false);
    assert.equal(a.status, 1);
  });

  it('reports the tests\' pytest apart, as a development import, and no finding for the optional ujson', async () => {
    const missing = byName(a, 'missing');
    assert.deepEqual(Object.keys(missing).sort(), ['httpx', 'pytest']);
    assert.equal(missing.pytest.importedAt, undefined);
    assert.deepEqual(missing.pytest.developmentImports, ['tests/test_models.py:1']);
    assert.ok(a.report.staticImports.notes.some((n: string) => /optional imports .*: ujson/.test(n)), a.report.staticImports.notes.join('\n'));
    const r = await runCliAsync(['audit', '--from', a.reportFile, '-q', '--fail-on', 'missing']);
    assert.equal(r.status, 1, 'httpx fails --fail-on missing');
  });

  it('fix --dry-run plans nothing: click==8.1.7 is pinned and loaded, and which package provides httpx is the maintainer\'s to say', async () => {
    const plan = await plannedFix(a.reportFile, a.dir);
    assert.deepEqual(plan, { edits: [], after: {}, kept: [] });
  });

  it('SARIF: the missing result has a region, every rule a helpUri into docs/sarif.md, the driver an informationUri', async () => {
    const sarif = await sarifOf(a);
    const httpx = sarif.results.find((r: any) => r.properties.package === 'httpx');
    assert.equal(httpx.ruleId, 'missing');
    assert.equal(httpx.level, 'error');
    assert.equal(httpx.locations[0].physicalLocation.region.startLine, 2);
    assert.equal(sarif.results.find((r: any) => r.properties.package === 'pytest').level, 'note');
    assert.match(sarif.tool.driver.informationUri, /\/docs\/sarif\.md$/);
    const docs = await readFile(new URL('../../docs/sarif.md', import.meta.url), 'utf8');
    for (const rule of sarif.tool.driver.rules) {
      const anchor = /#(.+)$/.exec(rule.helpUri)?.[1];
      assert.ok(anchor && docs.includes(`<a id="${anchor}"></a>`), `docs/sarif.md has the anchor of ${rule.helpUri}`);
    }
  });
});

describe('discovery: loaded by an entry point or python -m, not by import', () => {
  let a: Audited;
  before(async () => {
    a = await audited('discovery');
  });

  it('keeps the pytest11 plug-in and the module run with python -m, saying which rule decided', () => {
    const phantom = byName(a, 'phantom');
    assert.deepEqual(Object.keys(phantom).sort(), ['pytest-timeout', 'tabulate']);
    assert.equal(phantom['pytest-timeout'].discovery.rule, 'python-entry-point');
    assert.match(phantom['pytest-timeout'].discovery.evidence, /group pytest11, which pytest loads/);
    assert.equal(phantom.tabulate.discovery.rule, 'python-run-module');
    assert.match(phantom.tabulate.discovery.evidence, /main\.py:8/);
    for (const f of Object.values(phantom) as any[]) {
      assert.match(f.advice, /keep it, it is not used on the traced path/);
      assert.doesNotMatch(f.advice, /remove/);
    }
  });

  it('fix --remove-phantom leaves them', async () => {
    const r = await runCliAsync(['fix', '--from', a.reportFile, '--remove-phantom', '--dry-run', '--json', '-q']);
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.deepEqual(result.applied.filter((e: any) => e.kind === 'remove'), []);
    assert.deepEqual(result.kept.filter((k: any) => k.kind === 'phantom').map((k: any) => k.name).sort(), ['pytest-timeout', 'tabulate']);
  });

  it('fix --pin --remove-phantom --dry-run plans nothing: all three are pinned, pytest is loaded, the others are kept', async () => {
    const plan = await plannedFix(a.reportFile, a.dir);
    assert.deepEqual(plan.edits, []);
    assert.deepEqual(plan.after, {});
    assert.deepEqual(plan.kept.filter((k) => k.startsWith('phantom')), ['phantom pytest-timeout', 'phantom tabulate']);
  });
});

describe('discovery: Java service providers, not imported', () => {
  let a: Audited;
  before(async () => {
    a = await audited('serviceProviders');
  });

  it('keeps the ImageIO plug-in and the slf4j provider (META-INF/services), and still removes commons-lang3', async () => {
    const phantom = byName(a, 'phantom');
    assert.deepEqual(Object.keys(phantom).sort(), ['commons-lang3', 'imageio-webp', 'slf4j-simple']);
    // Known from the jars (unzip -l): imageio-webp 3.11.0 registers javax.imageio.spi.ImageReaderSpi, slf4j-simple
    // 2.0.13 org.slf4j.spi.SLF4JServiceProvider; commons-lang3 3.14.0 has no META-INF/services.
    assert.equal(phantom['imageio-webp'].discovery.rule, 'java-service-provider');
    assert.match(phantom['imageio-webp'].discovery.evidence, /javax\.imageio\.spi\.ImageReaderSpi/);
    assert.equal(phantom['slf4j-simple'].discovery.rule, 'java-service-provider');
    assert.match(phantom['slf4j-simple'].discovery.evidence, /org\.slf4j\.spi\.SLF4JServiceProvider/);
    for (const n of ['imageio-webp', 'slf4j-simple']) assert.match(phantom[n].advice, /keep it, it is not used on the traced path/);
    assert.equal(phantom['commons-lang3'].phantom, 'unused');
    assert.equal(phantom['commons-lang3'].discovery, undefined);
    const r = await runCliAsync(['fix', '--from', a.reportFile, '--remove-phantom', '--dry-run', '--json', '-q']);
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.deepEqual(result.applied.filter((e: any) => e.kind === 'remove').map((e: any) => e.dependency.name), ['commons-lang3']);
  });

  it('fix --pin --remove-phantom --dry-run plans exactly the removal of commons-lang3\'s <dependency>', async () => {
    // Every version is exact; App imports only gson, which has no dependencies of its own (nothing hidden); the two
    // discovered providers stay. The removal takes the element's five lines and nothing else.
    const plan = await plannedFix(a.reportFile, a.dir);
    assert.deepEqual(plan.edits, ['remove commons-lang3']);
    const original = await readFile(path.join(a.dir, 'pom.xml'), 'utf8');
    const lang3 = '    <dependency>\n      <groupId>org.apache.commons</groupId>\n      <artifactId>commons-lang3</artifactId>\n      <version>3.14.0</version>\n    </dependency>\n';
    assert.ok(original.includes(lang3));
    assert.deepEqual(plan.after, { 'pom.xml': original.replace(lang3, '') });
  });
});
