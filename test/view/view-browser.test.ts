/**
 * `envproof view` in a real headless Chromium (Debian's, through playwright-core), over a store that real runs
 * wrote: the replay fixtures' JavaScript and C++ projects (real npm and CMake, the real tracer), then, while a page
 * is open, a scripted Python run that is repaired once (real pip). One browser and one view server for every check.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { parse as parseYaml } from 'yaml';
import type { StoredRun } from '../../src/store/types.js';
import { REPO_ROOT, runCli, runCliAsync } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { FIXTURES as PROTOCOL_FIXTURES, readStore, SUITE, type StoreEntry } from '../protocol/helpers.js';
import { sessionCookie, startView, type RunningView } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts');
const SCRIPT = path.join(import.meta.dirname, 'fixtures', 'repair-with-markup.yaml');
const RUN = ['run', '--suite', SUITE, '--sandbox', 'host', '--quiet', '--tasks', 'p_01'];

const runPath = (r: StoredRun) => `/runs/envproof/${r.agent}/${r.language}/${r.taskId}/${r.trial}`;

describe('envproof view in headless chromium', requires(CHROMIUM, existsSync(CHROMIUM), "scripts/setup.sh installs Debian's chromium"), () => {
  let dir: string;
  let store: string;
  let view: RunningView;
  let context: BrowserContext;
  let page: Page;
  let replayed: StoreEntry[];
  /** Console errors and page errors of every page (a Content-Security-Policy violation is one). */
  const errors: string[] = [];
  /** Requests the pages made to anything but the view itself. */
  const outside: string[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-view-'));
    store = path.join(dir, 'store.db');
    const r = runCli([...RUN, '--store', store, '--agent', `claude@replay:${path.join(PROTOCOL_FIXTURES, 'replay')}`, '--languages', 'javascript,cpp']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    replayed = await readStore(store);
    assert.equal(replayed.length, 2, 'the replay fixtures hold p_01 in JavaScript and C++');
    view = await startView('--store', store);
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1200, height: 800 },
    });
    page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (q) => !q.url().startsWith(view.base) && outside.push(q.url()));
    await page.goto(view.url);
  });

  after(async () => {
    await context?.close();
    if (view && view.child.exitCode === null) await view.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cells = (selector: string) => page.$$eval(selector, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
  const header = () => page.$$eval('table[data-table="runs"] th', (ths) => ths.map((th) => th.textContent!.replace(/[▲▼]/g, '').trim()));
  const rowOf = async (run: StoredRun) => {
    const names = await header();
    const [row] = await cells(`tr[data-run="${runPath(run)}"]`);
    assert.ok(row, `no row for ${runPath(run)}`);
    return Object.fromEntries(names.map((n, i) => [n, row[i]]));
  };

  it('lists each replayed run with its success, error class and layer counts, and counts per filter', async () => {
    assert.equal(new URL(page.url()).search, '', 'the token left the address bar for a cookie');
    assert.equal(await page.$$eval('table[data-table="runs"] tbody tr', (trs) => trs.length), 2);
    for (const { run } of replayed) {
      const row = await rowOf(run);
      assert.equal(row.agent, 'claude');
      assert.equal(row.task, 'p_01');
      assert.equal(row.language, run.language);
      assert.equal(row['first success'], 'yes');
      assert.equal(row['first error class'], 'None');
      assert.equal(row.n1, String(run.declared!.length));
      assert.equal(row.n2, String(run.installed.length));
      assert.equal(row.n3, String(run.traced.length));
    }
    // Known from the fixtures: package.json declares chalk@4.1.2 alone, whose tree installs six packages; CMake finds zlib.
    const js = replayed.find((e) => e.run.language === 'javascript')!.run;
    assert.deepEqual([(await rowOf(js)).n1, (await rowOf(js)).n2], ['1', '6']);
    assert.equal((await rowOf(js))['ρ'], '6', 'ρ = |D2| / |D1| = 6 / 1');
    const languages = await page.$$eval('a[data-filter="language"]', (as) => as.map((a) => a.textContent));
    assert.deepEqual(languages.sort(), ['cpp (1)', 'javascript (1)']);
  });

  it('shows a run: its attempt, its three layers with the gaps marked, its findings', async () => {
    const js = replayed.find((e) => e.run.language === 'javascript')!;
    await page.click(`tr[data-run="${runPath(js.run)}"] a >> nth=0`);
    assert.equal(new URL(page.url()).pathname, runPath(js.run), 'a URL per run');
    assert.deepEqual(await page.$$eval('li[data-attempt]', (lis) => lis.map((li) => li.getAttribute('data-attempt'))), ['0']);
    assert.match((await page.textContent('li[data-attempt="0"] h3'))!, /succeeded/);
    const { declared, installed, traced } = js.run;
    const d1 = new Set(declared);
    const d3 = new Set(traced);
    // Expected by set arithmetic on what the store holds: hidden D3∖D1, bloat D2∖D3, transitive D2∖D1.
    const expected = (name: string) => [
      ...(d3.has(name) && !d1.has(name) ? ['hidden'] : []),
      ...(!d3.has(name) && installed.includes(name) ? ['bloat'] : []),
      ...(installed.includes(name) && !d1.has(name) ? ['transitive'] : []),
    ];
    const shown = await page.$$eval('table[data-table="layers"] tbody tr', (trs) =>
      trs.map((tr) => ({ name: tr.getAttribute('data-package')!, ticks: [...tr.querySelectorAll('td')].slice(1, 4).map((td) => td.textContent === '✓'), gaps: [...tr.querySelectorAll('[data-gap]')].map((g) => g.getAttribute('data-gap')) })),
    );
    assert.deepEqual(shown.map((s) => s.name), [...new Set([...installed, ...traced])].sort());
    for (const s of shown) {
      assert.deepEqual(s.ticks, [d1.has(s.name), installed.includes(s.name), d3.has(s.name)], s.name);
      assert.deepEqual(s.gaps, expected(s.name), s.name);
    }
    assert.deepEqual(shown.find((s) => s.name === 'chalk'), { name: 'chalk', ticks: [true, true, true], gaps: [] });
    const findings = await page.$$eval('ul[data-list="findings"] li', (lis) => lis.map((li) => li.textContent!));
    assert.ok(findings.some((f) => /^hidden\s+has-flag: loaded at run time but not declared in package\.json/.test(f)), findings.join('\n'));
  });

  it('shows a run written while the page is open, without a reload', async () => {
    await page.goto(`${view.base}/`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const python = runCliAsync([...RUN, '--store', store, '--agent', `scripted:${SCRIPT}`, '--languages', 'python', '--repairs', '2']);
    const row = 'tr[data-run="/runs/envproof/scripted/python/p_01/1"]';
    await page.waitForSelector(row, { timeout: 240_000 });
    const r = await python;
    assert.equal(r.status, 0, r.stdout + r.stderr);
    // The run ends with its second attempt: the row turns to done and successful without the page being loaded again.
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes('done'), row, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'the page was not reloaded');
    assert.equal(await page.$$eval('table[data-table="runs"] tbody tr', (trs) => trs.length), 3);
  });

  it('diffs an attempt against the one before: the manifest line that changed', async () => {
    await page.goto(`${view.base}/runs/envproof/scripted/python/p_01/1`);
    const attempts = await page.$$eval('li[data-attempt]', (lis) => lis.map((li) => [li.getAttribute('data-attempt'), li.querySelector('[data-error-class]')?.textContent ?? null]));
    assert.deepEqual(attempts, [['0', 'missing-dependency'], ['1', null]]);
    assert.match((await page.textContent('pre[data-text="attempt-0-tail"]'))!, /No module named 'yaml'/);
    // What the agent was sent: the suite's task (suite.yaml: p_01 "Prints a greeting."), then the repair prompt
    // carrying the failure; what the program printed: `print(six.PY3, yaml.safe_dump({"ok": True}))`.
    assert.match((await page.textContent('pre[data-text="attempt-0-prompt"]'))!, /^TASK: Greeter\n\nPrints a greeting\./);
    assert.match((await page.textContent('pre[data-text="attempt-1-prompt"]'))!, /Error class: missing-dependency[\s\S]*No module named 'yaml'/);
    assert.equal(await page.textContent('pre[data-text="attempt-1-program"]'), 'True ok: true\n\n');
    const changes = await page.$$eval('#attempt-1-diff [data-change]', (els) => els.map((e) => [e.getAttribute('data-path'), e.getAttribute('data-change')]));
    assert.deepEqual(changes, [['requirements.txt', 'modified']], 'round 1 rewrote the manifest only');
    const added = await page.$$eval('#attempt-1-diff .add', (els) => els.map((e) => e.textContent));
    const removed = await page.$$eval('#attempt-1-diff .del', (els) => els.map((e) => e.textContent));
    assert.deepEqual(added, ['+PyYAML==6.0.2']);
    assert.deepEqual(removed, []);
    assert.equal(await page.$$eval('#attempt-0-diff', (els) => els.length), 0, 'attempt 0 has no attempt before it');
    const gaps = await page.$$eval('tr[data-package="pyyaml"] [data-gap]', (els) => els.map((e) => e.textContent));
    assert.deepEqual(gaps, ['hidden', 'transitive'], 'D1 is attempt 0’s manifest, which lacked PyYAML');
    // The README's picture: the run down to the repaired manifest's diff (the first failure's output folded).
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.click('#attempt-0-tail summary');
    const bottom = await page.$eval('#attempt-1-diff', (d) => d.getBoundingClientRect().bottom + window.scrollY);
    await page.screenshot({ path: path.join(ARTIFACTS, 'view-run.png'), fullPage: true, clip: { x: 0, y: 0, width: 1200, height: Math.ceil(bottom) + 12 } });
    await page.click('#attempt-0-tail summary');
  });

  it('shows a project file holding <script> as text, which never runs', async () => {
    const script = (parseYaml(readFileSync(SCRIPT, 'utf8')) as { default: { files: Record<string, string> }[] }).default[0]!.files;
    await page.click('#attempt-0-tree summary');
    await page.click('#attempt-0-tree a:text-is("notes.html")');
    assert.deepEqual(await page.$$eval('pre[data-file] span.line', (ls) => ls.map((l) => l.textContent)), script['notes.html']!.trimEnd().split('\n'));
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.notEqual(await page.title(), 'pwned');
    assert.equal(await page.$$eval('main script, main img', (els) => els.length), 0, 'no element made from the file');
  });

  it('draws the report’s figures for the current filter', async () => {
    const figures = async (query: string) => {
      await page.goto(`${view.base}/figures?${query}`);
      // Per figure, the marks of its rect layers (heatmap cells, bars).
      return page.$$eval('figure[data-figure]', (figs) => Object.fromEntries(figs.map((f) => [f.getAttribute('data-figure'), [...f.querySelectorAll('g.role-mark.mark-rect')].reduce((n, g) => n + g.children.length, 0)])));
    };
    // Figure 4 is one cell per agent and language: 2 agents (claude, scripted) × their languages, then one language.
    const all = await figures('source=envproof');
    assert.equal(all.fig4, 3, 'claude × JavaScript, claude × C++, scripted × Python');
    const javascript = await figures('source=envproof&language=javascript');
    assert.equal(javascript.fig4, 1);
    assert.match((await page.textContent('main'))!, /From 1 finished run \(1 primary\)/);
  });

  it('refuses every request without the token, and any write', async () => {
    const paths = ['/', '/api/stamp', '/assets/view.js', '/figures', runPath(replayed[0]!.run)];
    for (const p of paths) {
      assert.equal((await fetch(`${view.base}${p}`)).status, 403, `${p} without the token`);
      assert.equal((await fetch(`${view.base}${p}?token=${'0'.repeat(view.token.length)}`, { redirect: 'manual' })).status, 403, `${p} with a wrong token`);
      assert.equal((await fetch(`${view.base}${p}`, { headers: { cookie: `envproof-view-${new URL(view.base).port}=wrong` } })).status, 403, `${p} with a wrong cookie`);
    }
    const withToken = await fetch(view.url, { redirect: 'manual' });
    assert.equal(withToken.status, 303);
    assert.match(withToken.headers.get('set-cookie')!, /HttpOnly; SameSite=Strict/);
    const cookie = await sessionCookie(view);
    const ok = await fetch(`${view.base}/`, { headers: { cookie } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-security-policy')!, /default-src 'none'; script-src 'self'/);
    assert.equal((await fetch(`${view.base}/`, { method: 'POST', headers: { cookie } })).status, 405);
    assert.equal((await fetch(`${view.base}/trees/${'a'.repeat(64)}/etc/passwd`, { headers: { cookie } })).status, 404, 'only the store’s trees');
    assert.equal((await fetch(`${view.base}/?sort=nonsense`, { headers: { cookie } })).status, 400);
  });

  it('loaded nothing but the view, with no console error, and stops on SIGTERM with exit 0', async () => {
    assert.deepEqual(errors, []);
    assert.deepEqual(outside, []);
    assert.equal(await view.stop(), 0, view.stderr());
  });
});
