// tier: quick
/**
 * The view's pure parts, on hand-made data: the runs table (metrics per run, filters and their counts, sorting,
 * pages), its URLs, the tree diff, the escaping template and the rate interval.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { wilsonInterval } from '../../src/metrics/stats.js';
import type { StoredRun, TreeEntry } from '../../src/store/types.js';
import { filePage } from '../../src/view/page-file.js';
import { fileHref, route, runHref } from '../../src/view/routes.js';
import { PAGE_SIZE, parseTableQuery, queryParams, runRow, tablePage, type TableQuery } from '../../src/view/run-table.js';
import { html, trusted } from '../../src/view/safe-html.js';
import { MAX_DIFF_BYTES, textOf, treeDiff, type StoredTree } from '../../src/view/tree-diff.js';
import type { Evaluation } from '../../src/verify/evaluate.js';
import { evaluationRecord } from '../../src/verify/protocol-step.js';
import { verifyProject } from '../../src/verify/verify.js';
import { writeTree } from '../verify/helpers.js';

function run(over: Partial<StoredRun>): StoredRun {
  return {
    source: 'envproof', agent: 'a', language: 'python', taskId: 't1', trial: 1, primary: true, firstSuccess: true, finalSuccess: true,
    repairDepth: 0, initialErrorType: 'None', declared: ['x'], installed: ['x'], traced: ['x'], claimedCount: 1, transitiveCount: 1, status: 'done',
    ...over,
  };
}

const query = (over: Partial<TableQuery> = {}): TableQuery => ({ source: 'envproof', filters: {}, descending: false, page: 1, ...over });

describe('runs table', () => {
  test('a run’s counts, ρ and F1; D2, D3, ρ and F1 only for a run that ended successfully', () => {
    // D1 {x, y}, D2 {x, y, z, w}, D3 {x, z}: ρ = 4/2; precision 1/2, recall 1/2, F1 1/2.
    const ok = runRow(run({ declared: ['x', 'y'], installed: ['w', 'x', 'y', 'z'], traced: ['x', 'z'] }), false);
    assert.deepEqual([ok.n1, ok.n2, ok.n3, ok.rho, ok.f1], [2, 4, 2, 2, 0.5]);
    const failed = runRow(run({ finalSuccess: false, firstSuccess: false, repairDepth: null, declared: ['x', 'y'], installed: [], traced: [] }), false);
    assert.deepEqual([failed.n1, failed.n2, failed.n3, failed.rho, failed.f1], [2, null, null, null, null]);
    const unread = runRow(run({ declared: null }), false);
    assert.deepEqual([unread.n1, unread.n2, unread.rho, unread.f1], [null, 1, null, null], 'D1 unknown: no ρ, no F1');
  });

  const rows = [
    runRow(run({ agent: 'a', language: 'python', taskId: 't1' }), false),
    runRow(run({ agent: 'a', language: 'java', taskId: 't1', finalSuccess: false, firstSuccess: false, initialErrorType: 'MissingDep', repairDepth: null }), false),
    runRow(run({ agent: 'b', language: 'python', taskId: 't2', repairDepth: 3, firstSuccess: false, initialErrorType: 'CodeBug' }), true),
    runRow(run({ agent: 'b', language: 'python', taskId: 't3', status: 'running', finalSuccess: false, firstSuccess: false, repairDepth: null, initialErrorType: null }), false),
    runRow(run({ source: 'envgap-csv', agent: 'a' }), false),
  ];

  test('one source at a time; each filter value counted among the runs the other filters keep', () => {
    const all = tablePage(rows, query());
    assert.equal(all.total, 4);
    assert.deepEqual(all.sources, [['envproof', 4], ['envgap-csv', 1]]);
    assert.deepEqual(all.facets.agent, [['a', 2], ['b', 2]]);
    assert.deepEqual(all.facets.kind, [['environment', 3], ['backend', 1]]);
    const b = tablePage(rows, query({ filters: { agent: 'b' } }));
    assert.deepEqual(b.rows.map((r) => r.run.taskId), ['t2', 't3']);
    // The agent facet ignores the agent filter (the other values stay choosable); the others count b's runs only.
    assert.deepEqual(b.facets.agent, [['a', 2], ['b', 2]]);
    assert.deepEqual(b.facets.language, [['python', 2]]);
    assert.deepEqual(b.facets.status, [['done', 1], ['running', 1]]);
    assert.deepEqual(b.facets.error, [['CodeBug', 1], ['—', 1]]);
    assert.equal(tablePage(rows, query({ source: 'envgap-csv' })).total, 1);
  });

  test('sorted by any column, unknown values last in both directions', () => {
    const depths = (descending: boolean) => tablePage(rows, query({ sort: 'depth', descending })).rows.map((r) => r.run.repairDepth);
    assert.deepEqual(depths(false), [0, 3, null, null]);
    assert.deepEqual(depths(true), [3, 0, null, null]);
    assert.deepEqual(tablePage(rows, query({ sort: 'language' })).rows.map((r) => r.run.language), ['java', 'python', 'python', 'python']);
  });

  test('pages of PAGE_SIZE rows; a page past the end shows the last one', () => {
    const many = Array.from({ length: PAGE_SIZE * 2 + 3 }, (_, i) => runRow(run({ trial: i + 1 }), false));
    const second = tablePage(many, query({ page: 2 }));
    assert.deepEqual([second.rows.length, second.rows[0]!.run.trial, second.pages], [PAGE_SIZE, PAGE_SIZE + 1, 3]);
    const beyond = tablePage(many, query({ page: 9 }));
    assert.deepEqual([beyond.page, beyond.rows.length], [3, 3]);
  });

  test('the query read from a URL and written back; bad values are refused by name', () => {
    const params = new URLSearchParams('source=envgap-csv&agent=r%26d&sort=f1&dir=desc&page=2');
    const q = parseTableQuery(params, ['envproof']);
    assert.deepEqual(q, { source: 'envgap-csv', filters: { agent: 'r&d' }, sort: 'f1', descending: true, page: 2 });
    assert.deepEqual(parseTableQuery(queryParams(q), []), q);
    assert.equal(parseTableQuery(new URLSearchParams(), ['envgap-csv']).source, 'envgap-csv', 'the first source present by default');
    for (const [bad, message] of [['source=csv', /unknown source "csv"/], ['sort=name', /unknown sort column "name"/], ['dir=up', /dir must be asc or desc/], ['page=0', /page must be a positive integer/], ['page=1e3', /page must be a positive integer/]] as const) {
      assert.throws(() => parseTableQuery(new URLSearchParams(bad), []), (err: Error) => err instanceof UsageError && message.test(err.message), bad);
    }
  });
});

describe('URLs', () => {
  test('a run’s URL names it, whatever its agent’s name', () => {
    const key = { source: 'envproof', agent: 'r&d/<bot> é', language: 'javascript', taskId: 'p 01', trial: 2 } as const;
    assert.equal(runHref(key), '/runs/envproof/r%26d%2F%3Cbot%3E%20%C3%A9/javascript/p%2001/2');
    assert.deepEqual(route(runHref(key)), { page: 'run', key });
  });

  test('a file’s URL, and paths that name nothing', () => {
    const tree = 'ab'.repeat(32);
    assert.deepEqual(route(fileHref(tree, 'src/a b.py', 3).split('#')[0]!), { page: 'file', tree, path: 'src/a b.py' });
    for (const p of ['/runs/envproof/a/cobol/t/1', '/runs/envproof/a/python/t/0', '/runs/other/a/python/t/1', '/trees/xyz/a.py', '/runs/%E0%A4%A/a', '/nothing', '/runs']) {
      assert.equal(route(p), undefined, p);
    }
  });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function tree(files: Record<string, string | Buffer | { link: string } | { exec: string }>): StoredTree {
  const blobs = new Map<string, Buffer>();
  const entries: TreeEntry[] = Object.entries(files).map(([path, f]) => {
    const content = Buffer.isBuffer(f) ? f : typeof f === 'string' ? Buffer.from(f) : Buffer.from('link' in f ? f.link : f.exec);
    blobs.set(sha(content), content);
    const kind = typeof f === 'object' && !Buffer.isBuffer(f) && 'link' in f ? 'symlink' : 'file';
    return { path, kind, executable: typeof f === 'object' && !Buffer.isBuffer(f) && 'exec' in f, blob: sha(content) };
  });
  return { entries, blob: (h) => blobs.get(h)! };
}

describe('tree diff', () => {
  test('added, removed and modified files, with the changed lines', () => {
    const before = tree({ 'requirements.txt': 'six==1.16.0\n', 'old.py': 'x = 1\n', 'same.py': 'y\n' });
    const after = tree({ 'requirements.txt': 'six==1.16.0\nPyYAML==6.0.2\n', 'new.py': 'z\n', 'same.py': 'y\n' });
    const changes = treeDiff(before, after);
    assert.deepEqual(changes.map((c) => [c.path, c.change]), [['new.py', 'added'], ['old.py', 'removed'], ['requirements.txt', 'modified']]);
    assert.deepEqual(changes[2]!.hunks.flatMap((h) => h.lines), [' six==1.16.0', '+PyYAML==6.0.2']);
    assert.deepEqual(changes[1]!.hunks.flatMap((h) => h.lines), ['-x = 1']);
  });

  test('binary and large files are said to differ; a new executable bit or link target is a change', () => {
    const big = 'a\n'.repeat(MAX_DIFF_BYTES);
    const changes = treeDiff(
      tree({ 'logo.png': Buffer.from([0x89, 0x50, 0, 1]), 'big.txt': big, 'run.sh': 'echo\n', link: { link: 'a' } }),
      tree({ 'logo.png': Buffer.from([0x89, 0x50, 0, 2]), 'big.txt': `${big}b\n`, 'run.sh': { exec: 'echo\n' }, link: { link: '/etc/passwd' } }),
    );
    const by = Object.fromEntries(changes.map((c) => [c.path, c]));
    assert.equal(by['logo.png']!.unshown, 'binary');
    assert.equal(by['big.txt']!.unshown, 'too-large');
    assert.equal(by['run.sh']!.modeChange, 'file → executable file');
    assert.deepEqual(by.link!.hunks.flatMap((h) => h.lines), ['-→ a', '+→ /etc/passwd']);
  });

  test('text: a NUL byte or invalid UTF-8 is not text; a character cut at the end of a file’s beginning is', () => {
    const e = Buffer.from('é');
    assert.equal(textOf(Buffer.from('a\0b')), undefined);
    assert.equal(textOf(e.subarray(0, 1)), undefined);
    assert.equal(textOf(Buffer.concat([Buffer.from('ab'), e.subarray(0, 1)]), true), 'ab');
  });

  test('a symlink’s page shows its target as text and reads nothing behind it', () => {
    const t = tree({ escape: { link: '/etc/shadow' } });
    const page = filePage('ab'.repeat(32), t.entries[0]!, t, 's');
    assert.match(page.body.text, /A symbolic link to <code data-link>\/etc\/shadow<\/code>/);
  });
});

describe('escaping and statistics', () => {
  test('every interpolated value is text; only template markup and trusted SVG are markup', () => {
    const name = '<img src=x onerror=alert(1)>&"\'';
    assert.equal(html`<td title="${name}">${[name, null, false, undefined, 3]}</td>`.text, '<td title="&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;">&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;3</td>');
    assert.equal(html`<p>${html`<b>${name}</b>`}${trusted('<svg></svg>')}</p>`.text, '<p><b>&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;</b><svg></svg></p>');
  });

  test('Wilson interval: textbook values at 95%', () => {
    // 0 of 10: [0, z²/(n + z²)] = [0, 0.2775]; 5 of 10: 0.5 ± 0.2634.
    const [lo0, hi0] = wilsonInterval(0, 10)!;
    assert.equal(lo0, 0);
    assert.equal(hi0.toFixed(4), '0.2775');
    assert.deepEqual(wilsonInterval(5, 10)!.map((x) => x.toFixed(4)), ['0.2366', '0.7634']);
    assert.equal(wilsonInterval(0, 0), null);
  });
});

describe('what the store keeps for the view', () => {
  test('a backend evaluation keeps each verifier’s evidence with its file and line, the strict verdict’s marked', async () => {
    // The real verifiers on a project whose repository runs raw SQL through SQLAlchemy's text() (line 3), and which has
    // no layers: the ORM holds by the paper's rule but not strictly; the architecture does not hold.
    const dir = writeTree({
      'app.py': 'from repo import find\n',
      'repo.py': 'from sqlalchemy import text\ndef find(db):\n    return db.execute(text("SELECT * FROM articles"))\n',
      'requirements.txt': 'SQLAlchemy==2.0.36\n',
    });
    const verifiers = await verifyProject(dir, { architecture: 'clean', orm: 'sqlalchemy' });
    const evaluation = { passed: false, failureClass: 'constraint-violation', aPct: { lenient: 100, strict: 0 }, verifiers, startup: { started: true, afterMs: 5 }, serverLog: '' } as unknown as Evaluation;
    const record = evaluationRecord(0, { framework: 'flask', language: 'python', level: 2, constraints: { architecture: 'clean', orm: 'sqlalchemy' }, port: 8080 }, evaluation);
    const orm = record.verifiers!.find((v) => v.name === 'orm')!;
    assert.deepEqual([orm.passed, orm.strict], [true, false]);
    assert.ok(orm.evidence!.some((e) => e.file === 'repo.py' && e.line === 3 && /^strict: raw SQL/.test(e.message)), JSON.stringify(orm.evidence));
    const architecture = record.verifiers!.find((v) => v.name === 'architecture')!;
    assert.equal(architecture.passed, false);
    const real = verifiers.verifiers.find((v) => v.name === 'architecture')!.evidence;
    assert.deepEqual(architecture.evidence, real.slice(0, 20));
  });
});
