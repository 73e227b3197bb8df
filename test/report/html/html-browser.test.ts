// tier: quick
/**
 * The HTML report in a real headless browser (Debian's chromium via playwright-core): it loads from a file://
 * URL with no console error and no request but the page itself, every figure is an SVG of non-zero size with
 * marks in it, and the tables hold the values of the hand-made report. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { renderHtml } from '../../../src/report/html.js';
import { REPO_ROOT, runCli, SHARED } from '../../helpers/cli.js';
import { requires } from '../../helpers/requires.js';
import { smallReport } from './fixtures/small-report.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts');
const PAPER_DATA = path.join(SHARED, 'data', 'envgap-paper');
const FIGURES = ['fig4', 'fig5', 'fig6', 'fig7', 'fig8', 'fig9', 'fig10', 'fig11'];


interface Loaded {
  page: Page;
  consoleErrors: string[];
  /** Every request the page made, its own URL included. */
  requests: string[];
  url: string;
}

describe('HTML report in headless chromium', requires(CHROMIUM, existsSync(CHROMIUM), "scripts/setup.sh installs Debian's chromium"), () => {
  let context: BrowserContext;
  let workDir: string;

  before(async () => {
    workDir = mkdtempSync(path.join(os.tmpdir(), 'envproof-html-'));
    context = await chromium.launchPersistentContext(path.join(workDir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1200, height: 900 },
    });
  });

  after(async () => {
    await context?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  async function load(name: string, html: string): Promise<Loaded> {
    const file = path.join(workDir, `${name}.html`);
    writeFileSync(file, html);
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: 'load' });
    return { page, consoleErrors, requests, url };
  }

  function assertSelfContained(loaded: Loaded): void {
    assert.deepEqual(loaded.consoleErrors, [], 'console errors');
    assert.deepEqual(loaded.requests, [loaded.url], 'the page must request nothing but itself');
  }

  /** Per figure: the SVG's rendered size and how many Vega marks of each type it draws. */
  async function figureStats(page: Page) {
    return page.$$eval('figure[data-figure]', (figs) =>
      figs.map((fig) => {
        const svg = fig.querySelector('svg');
        const box = svg?.getBoundingClientRect();
        const marks: Record<string, number> = {};
        for (const g of fig.querySelectorAll('g.role-mark')) {
          const type = [...g.classList].find((c) => c.startsWith('mark-'))!.slice(5);
          marks[type] = (marks[type] ?? 0) + g.children.length;
        }
        return {
          id: fig.getAttribute('data-figure')!,
          missing: fig.classList.contains('missing'),
          text: fig.textContent ?? '',
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          marks,
          legends: fig.querySelectorAll('g.role-legend').length,
          axisTitles: [...fig.querySelectorAll('g.role-axis-title text')].map((t) => t.textContent),
        };
      }),
    );
  }

  /** A table's cells by row, as displayed. */
  async function tableRows(page: Page, name: string): Promise<string[][]> {
    return page.$$eval(`table[data-table="${name}"] tbody tr`, (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
  }

  it('renders the hand-made report: figures with marks, tables with its values, nothing fetched', async () => {
    const loaded = await load('small', await renderHtml(smallReport()));
    const { page } = loaded;
    assertSelfContained(loaded);

    const figures = await figureStats(page);
    assert.deepEqual(
      figures.map((f) => f.id),
      FIGURES,
    );
    for (const f of figures) {
      assert.equal(f.missing, false, `${f.id} should be drawn: ${f.text}`);
      assert.ok(f.width > 100 && f.height > 100, `${f.id} svg size ${f.width}x${f.height}`);
      assert.ok(f.legends > 0, `${f.id} has a legend`);
      assert.ok(f.axisTitles.length >= 2, `${f.id} axis titles: ${f.axisTitles.join(', ')}`);
    }
    const marks = Object.fromEntries(figures.map((f) => [f.id, f.marks]));
    // Counted by hand from the fixture: 2 agents × 2 languages cells; 7 non-empty repair buckets; 2 segments per
    // agent and language or domain; 3 rates × 2 languages; 4 positive ratios; 2 pairs × 2 languages.
    assert.equal(marks.fig4!.rect, 4);
    assert.equal(marks.fig5!.rect, 7);
    assert.equal(marks.fig6!.rect, 8);
    assert.equal(marks.fig7!.rect, 6);
    assert.equal(marks.fig8!.symbol, 4);
    assert.equal(marks.fig9!.rect, 4);
    assert.equal(marks.fig10!.rect, 8);
    assert.equal(marks.fig11!.rect, 1, 'claude in Python: the only stratum with standard-library-sufficient tasks');
    assert.deepEqual(figures.find((f) => f.id === 'fig8')!.axisTitles, ['Language', 'Inflation ratio ρ (log scale)']);

    // Values formatted as the paper's CSVs are (1 dp for percentages, 3 dp for rates), derived from the fixture; columns
    // and languages labelled as the figures write them.
    assert.deepEqual(
      await page.$$eval('table[data-table="convergence"] thead th', (ths) => ths.map((th) => th.textContent)),
      ['Agent', 'Language', 'Runs', 'SR(0) %', 'SR(≤k) %', 'First-attempt failures', 'Repaired %'],
    );
    const convergence = await tableRows(page, 'convergence');
    assert.deepEqual(convergence.find((r) => r[0] === 'r&d "<bot>"' && r[1] === 'C++'), ['r&d "<bot>"', 'C++', '2', '0.0', '50.0', '2', '50.0']);
    const table4 = await tableRows(page, 'table4_manifest_accuracy');
    assert.deepEqual(table4.find((r) => r[0] === 'all agents' && r[1] === 'Python'), ['all agents', 'Python', '3', '0.667', '0.5', '0.533']);
    assert.deepEqual(await tableRows(page, 'inflation'), [
      ['Python', '3', '15.0', '3.0'],
      ['C++', '2', '0.5', '0.5'],
    ]);
    assert.deepEqual(await tableRows(page, 'table5_stochastic'), [['Python', '2', '0.5', '0.5', '1', '2.5', '1']]);
    const syslib = await tableRows(page, 'table6_cpp_syslib');
    assert.deepEqual(syslib[1], ['r&d "<bot>"', '2', '0', '0.0', '0', '–'], 'EGAR undefined is a dash');
    // claude has no C++ run on a standard-library-sufficient task: an empty stratum, not a rate of 0.
    assert.deepEqual((await tableRows(page, 'unnecessary_dependency_rate')).find((r) => r[1] === 'C++'), ['claude', 'C++', '0', '–', '–']);
    const hidden = await tableRows(page, 'tableB5_hidden');
    assert.deepEqual(hidden, [
      ['Python', '1', 'six', '3', '1'],
      ['Python', '2', 'pytz', '1', '1'],
    ]);

    // The agent name from the data is text, never markup.
    assert.equal(await page.$$eval('bot', (els) => els.length), 0);
    assert.match((await page.textContent('header'))!, /Agents\s*claude, r&d "<bot>"/);

    // Self-contained: no script, every link in-page or a data: URI, unique ids (Vega's gradient/clip references).
    assert.equal(await page.$$eval('script, link, img, iframe, object, embed', (els) => els.length), 0);
    const hrefs = await page.$$eval('[href]', (els) => els.map((e) => e.getAttribute('href')!));
    assert.ok(hrefs.length > 0);
    for (const h of hrefs) assert.ok(h.startsWith('#') || h.startsWith('data:text/csv'), `external link ${h.slice(0, 60)}`);
    const ids = await page.$$eval('[id]', (els) => els.map((e) => e.id));
    assert.equal(new Set(ids).size, ids.length, 'duplicate element ids');

    // The CSV download carries the table shown.
    const csvHref = await page.getAttribute('table[data-table="convergence"] ~ a.csv', 'href');
    const csv = decodeURIComponent(csvHref!.slice('data:text/csv;charset=utf-8,'.length));
    assert.equal(csv.split(/\r?\n/)[0], 'agent,language,n,sr0_pct,final_sr_pct,first_attempt_failures,repaired_pct');
    assert.ok(csv.split(/\r?\n/).includes('"r&d ""<bot>""",cpp,2,0.0,50.0,2,50.0'), csv);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-small.png'), fullPage: true });
    await page.close();
  });

  it('replaces a figure without data by a sentence', async () => {
    const report = smallReport();
    report.domainConvergence = [];
    const loaded = await load('no-domains', await renderHtml(report));
    assertSelfContained(loaded);
    const fig10 = (await figureStats(loaded.page)).find((f) => f.id === 'fig10')!;
    assert.equal(fig10.missing, true);
    assert.equal(fig10.width, 0, 'no svg');
    assert.match(fig10.text, /no known domain/);
    await loaded.page.close();
  });

  it('renders the paper’s 1,000 runs written by `envproof report --format html`', requires(`the paper's data in ${PAPER_DATA}`, existsSync(PAPER_DATA)), async () => {
    const store = path.join(workDir, 'paper.db');
    const imported = runCli(['import', 'envgap-csv', PAPER_DATA, '--store', store]);
    assert.equal(imported.status, 0, imported.stderr);
    const reported = runCli(['report', '--store', store, '--format', 'html', '--out', workDir]);
    assert.equal(reported.status, 0, reported.stderr);
    const loaded = await load('paper', readFileSync(path.join(workDir, 'report.html'), 'utf8'));
    const { page } = loaded;
    assertSelfContained(loaded);
    assert.match((await page.textContent('header'))!, /1,000 \(600 primary\)/);
    const figures = await figureStats(page);
    // The paper's CSVs do not record repair depth, so Figure 5 is a sentence; every other figure is drawn.
    assert.deepEqual(
      figures.filter((f) => f.missing).map((f) => f.id),
      ['fig5'],
    );
    const marks = Object.fromEntries(figures.map((f) => [f.id, f.marks]));
    assert.equal(marks.fig4!.rect, 12, '3 agents × 4 languages');
    assert.equal(marks.fig9!.rect, 16, '(3 pairs + all pairs) × 4 languages');
    assert.ok(marks.fig8!.symbol! > 400, `fig8 dots: ${marks.fig8!.symbol}`);
    // Published values (results/convergence.csv, table6_cpp_syslib.csv).
    const convergence = await tableRows(page, 'convergence');
    assert.deepEqual(convergence.find((r) => r[0] === 'claude' && r[1] === 'Java')?.slice(0, 5), ['claude', 'Java', '50', '18.0', '100.0']);
    const syslib = await tableRows(page, 'table6_cpp_syslib');
    assert.deepEqual(syslib.find((r) => r[0] === 'claude'), ['claude', '32', '28', '87.5', '28', '100.0']);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report.png'), fullPage: true });
    await page.close();
  });
});
