/**
 * The Flask + SQLAlchemy reference server and its variants, evaluated end to end: installed and started in the
 * bwrap sandbox (PostgreSQL: Debian's server, started per run in the sandbox's network namespace), envproof's
 * suite and the Postman collection over that namespace's loopback, the environment traced.
 *
 * Expected scores are counted from the suite's listing (src/verify/contract/suite.ts), not taken from a run:
 * the suite has 40 requests and 107 assertions.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { evaluateBackend, type Evaluation } from '../../src/verify/evaluate.js';
import type { Constraints } from '../../src/verify/types.js';
import { runCli } from '../helpers/cli.js';
import { COLLECTION, expectedPostmanTotal, referenceServer, SPEC, type Edit } from './helpers.js';

const TOTAL = 107;
const POSTMAN_TOTAL = expectedPostmanTotal(JSON.parse(readFileSync(COLLECTION, 'utf8')));
const L3_SQLITE: Constraints = { architecture: 'clean', database: 'sqlite', orm: 'sqlalchemy' };

function evaluate(dir: string, opts: { constraints?: Constraints; collection?: boolean } = {}): Promise<Evaluation> {
  return evaluateBackend({
    dir,
    language: 'python',
    constraints: opts.constraints ?? {},
    sandbox: 'bwrap',
    port: 8080,
    spec: SPEC,
    ...(opts.collection ? { collection: COLLECTION } : {}),
    startupTimeoutSec: 60,
    timeoutSec: 600,
    progress: () => {},
  });
}

const failed = (e: Evaluation) => (e.contract?.assertions ?? []).filter((a) => !a.passed).map((a) => a.id).sort();

/** Makes the server print the network interfaces it sees (its network namespace's, from /proc/net/dev). */
const PRINT_INTERFACES: Edit = {
  file: 'app.py',
  from: 'if __name__ == "__main__":\n',
  to: 'if __name__ == "__main__":\n    print("interfaces:", sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]), flush=True)\n',
};

test('the Flask reference server passes every assertion of both suites on SQLite, and every verifier; its environment is traced', async () => {
  const dir = referenceServer('flask-sqlalchemy', 'sqlite', [PRINT_INTERFACES]);
  const e = await evaluate(dir, { constraints: L3_SQLITE, collection: true });
  assert.equal(e.startup.started, true, e.serverLog.slice(-2000));
  assert.deepEqual(failed(e), []);
  assert.equal(e.contract?.total, TOTAL);
  assert.equal(e.postman?.total, POSTMAN_TOTAL);
  assert.equal(e.postman?.passed, POSTMAN_TOTAL, JSON.stringify(e.postman?.assertions.filter((a) => !a.passed)));
  assert.equal(e.passed, true);
  assert.deepEqual(e.aPct, { lenient: 100, strict: 100 });
  assert.deepEqual(e.verifiers?.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), [['architecture', true, undefined], ['database', true, undefined], ['orm', true, true]]);
  // Every pinned requirement is loaded while serving: D1 = D3, nothing phantom or hidden.
  const names = (k: 'declared' | 'traced') => e.environment!.layers[k]!.map((d) => d.name);
  assert.equal(names('declared').length, 11);
  assert.deepEqual(names('traced'), names('declared'));
  assert.deepEqual(e.environment?.gaps.phantom, []);
  assert.equal(e.environment?.sandbox.backend, 'bwrap');
  assert.match(e.serverLog, /"GET \/api\/health-check HTTP\/1\.1" 200/);
  // Served with loopback only: the suites reached it from inside its namespace, and it had no other network.
  assert.match(e.serverLog, /^interfaces: \['lo'\]$/m);
});

/**
 * One server with four defects, each failing its own assertions (counted from the suite's listing). Evaluated
 * alone and after a collection: envproof's suite runs first on a fresh database with its own names, so what the
 * collection creates cannot change its count.
 */
const DEFECTS: { name: string; edit: Edit; fails: string[] }[] = [
  {
    // POST /users answers 200 where the document says 201: the two registrations' status assertions fail.
    name: 'a wrong status',
    edit: { file: 'conduit/routes/users.py', from: 'users.register(body_of("user"))}), 201', to: 'users.register(body_of("user"))}), 200' },
    fails: ['register.status', 'register-celeb.status'],
  },
  {
    // Articles without favoritesCount: every article schema check, and every check of the count.
    name: 'a missing field',
    edit: { file: 'conduit/services/articles.py', from: '        "favoritesCount": len(article.favorited_by),\n', to: '' },
    fails: [
      'create-article.schema', 'create-article.no-favorites', 'get-article.schema', 'update-article.schema', 'list-articles.schema',
      'list-by-author.schema', 'list-by-tag.schema', 'feed.schema', 'favorite.schema', 'favorite.count', 'list-favorited.count',
      'unfavorite.schema', 'unfavorite.count',
    ],
  },
  {
    // Favouriting stores nothing: the favourite's own answer, the favourited listing and the re-read fail; unfavouriting still "works".
    name: 'a favourite not flipping',
    edit: { file: 'conduit/services/articles.py', from: '            article.favorited_by.append(viewer)\n', to: '            pass\n' },
    fails: ['favorite.count', 'favorite.favorited', 'get-article-favorited.favorited', 'list-favorited.contains', 'list-favorited.count'],
  },
  {
    // Every article inserts its tags anew, so a tag used before violates the unique constraint (a 500): the second
    // user's article reuses the first article's tag "dragons-…", its creation fails, and with it the feed that should show it.
    name: 'duplicate tags rejected',
    edit: { file: 'conduit/repositories/articles.py', from: '    found = {t.name: t for t in session.scalars(select(Tag).where(Tag.name.in_(names)))}\n', to: '    found = {}\n' },
    fails: ['create-celeb-article.status', 'feed.followed', 'feed.not-own', 'feed.schema', 'feed.status'],
  },
];

test(`a server with ${DEFECTS.map((d) => d.name).join(', ')} fails exactly their assertions, with and without a collection`, async () => {
  const edits = DEFECTS.map((d) => d.edit);
  const alone = await evaluate(referenceServer('flask-sqlalchemy', 'sqlite', edits), { constraints: L3_SQLITE });
  const after = await evaluate(referenceServer('flask-sqlalchemy', 'sqlite', edits), { constraints: L3_SQLITE, collection: true });
  for (const e of [alone, after]) assert.equal(e.startup.started, true, `${e.startup.started ? '' : e.startup.reason}\n${e.serverLog.slice(-2000)}`);
  const expected = [...new Set(DEFECTS.flatMap((d) => d.fails))].sort();
  assert.deepEqual(failed(alone), expected);
  assert.deepEqual(failed(after), expected);
  assert.ok(after.postman!.passed > 0, 'the collection ran');
  const pct = (100 * (TOTAL - expected.length)) / TOTAL;
  assert.deepEqual(alone.aPct, { lenient: pct, strict: pct });
  assert.equal(alone.passed, false);
  assert.equal(alone.failureClass, 'logic-error');
});

test('constraint variants, verified statically: the other database, raw SQL', () => {
  const pg = referenceServer('flask-sqlalchemy', 'postgresql');
  const asSqlite = runCli(['verify', pg, '--database', 'sqlite', '--json']);
  assert.equal(asSqlite.status, 1);
  const db = JSON.parse(asSqlite.stdout).verifiers[0];
  assert.equal(db.passed, false);
  assert.deepEqual(db.evidence.map((x: { file: string; line: number }) => `${x.file}:${x.line}`), ['.:0', 'conduit/config.py:4', 'requirements.txt:8']);

  const raw = referenceServer('flask-sqlalchemy', 'sqlite', [
    {
      file: 'conduit/repositories/users.py',
      from: '    return session.scalars(select(User).where(User.email == email)).first()',
      to: '    row = session.execute(text("SELECT id FROM users WHERE email = :e"), {"e": email}).first()\n    return session.get(User, row[0]) if row else None',
    },
    { file: 'conduit/repositories/users.py', from: 'from sqlalchemy import select', to: 'from sqlalchemy import select, text' },
  ]);
  const orm = runCli(['verify', raw, '--orm', 'sqlalchemy', '--json']);
  assert.equal(orm.status, 0, 'the paper-compatible rule holds: SQLAlchemy is there');
  const v = JSON.parse(orm.stdout).verifiers[0];
  assert.equal(v.strict.passed, false);
  assert.deepEqual(v.strict.evidence.map((x: { file: string; line: number }) => `${x.file}:${x.line}`), ['conduit/repositories/users.py:12']);
  assert.equal(runCli(['verify', raw, '--orm', 'sqlalchemy', '--strict']).status, 1);
});

test('a server that exits at start-up: A% 0, class startup-failure, the reason names the exception from its log; the log is in arrival order, its head and tail kept', async () => {
  const noise = 'print("\\n".join("start-up noise %d %s" % (i, "x" * 100) for i in range(1000)), flush=True)';
  const edits = [{ file: 'app.py', from: 'app = create_app()', to: `import sys\nprint("FIRST, on stderr", file=sys.stderr, flush=True)\nprint("SECOND, on stdout", flush=True)\n${noise}\nimport conduit_missing_module` }];
  const e = await evaluate(referenceServer('flask-sqlalchemy', 'sqlite', edits));
  assert.equal(e.startup.started, false);
  assert.deepEqual(e.aPct, { lenient: 0, strict: 0 });
  assert.equal(e.failureClass, 'startup-failure');
  assert.equal(e.contract, undefined);
  assert.match(e.startup.started ? '' : e.startup.reason, /exited before it answered the health check: ModuleNotFoundError: No module named 'conduit_missing_module'$/);
  assert.ok(e.serverLog.indexOf('FIRST, on stderr') < e.serverLog.indexOf('SECOND, on stdout'), e.serverLog.slice(0, 500));
  assert.ok(e.serverLog.indexOf('FIRST, on stderr') >= 0);
  assert.match(e.serverLog, /\[… \d+ characters left out …\]/);
  assert.match(e.serverLog.slice(-2000), /ModuleNotFoundError/);
  assert.ok(e.serverLog.length < 65 * 1024, `${e.serverLog.length} characters kept`);
});

test('the Flask reference server on PostgreSQL with an upward import: Debian\'s server started for the run, both suites pass, A% strict 0 for the architecture alone', async () => {
  const upward = { file: 'conduit/repositories/comments.py', from: 'from conduit.models import Comment\n', to: 'from conduit.models import Comment\nfrom conduit.routes.common import optional_user  # noqa: F401\n' };
  const dir = referenceServer('flask-sqlalchemy', 'postgresql', [upward]);
  const e = await evaluate(dir, { constraints: { architecture: 'clean', database: 'postgresql', orm: 'sqlalchemy' }, collection: true });
  assert.equal(e.startup.started, true, e.serverLog.slice(-3000));
  assert.deepEqual(failed(e), []);
  assert.equal(e.postman?.passed, POSTMAN_TOTAL);
  assert.match(e.serverLog, /envproof: PostgreSQL ready on localhost:5432, database conduit/);
  assert.equal(e.environment?.sandbox.backend, 'bwrap');
  assert.ok(e.environment!.layers.traced!.some((d) => d.name === 'psycopg2-binary'), 'the driver was loaded while serving');
  // It behaves perfectly but violates the architecture: the database and the ORM hold, A% strict is 0.
  assert.deepEqual(e.verifiers?.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), [['architecture', false, undefined], ['database', true, undefined], ['orm', true, true]]);
  assert.deepEqual(e.aPct, { lenient: 100, strict: 0 });
  assert.equal(e.passed, false);
  assert.equal(e.failureClass, 'constraint-violation');
  const arch = e.verifiers!.verifiers.find((x) => x.name === 'architecture')!;
  assert.deepEqual(arch.evidence.map((x) => `${x.file}:${x.line}`), ['conduit/repositories/comments.py:5']);
});

test('bad input: a contract that is not OpenAPI 3, a collection that is not Postman v2.1, a project without run.sh', () => {
  const dir = referenceServer('flask-sqlalchemy', 'sqlite');
  const swagger = path.join(dir, 'swagger.yml');
  writeFileSync(swagger, 'swagger: "2.0"\npaths: {}\n');
  const r1 = runCli(['evaluate', dir, '--spec', swagger]);
  assert.equal(r1.status, 2);
  assert.match(r1.stderr, /is not an OpenAPI 3 document \(Swagger 2\.0\)/);

  const old = path.join(dir, 'old.json');
  writeFileSync(old, JSON.stringify({ info: { name: 'x', schema: 'https://schema.getpostman.com/json/collection/v2.0.0/collection.json' }, item: [] }));
  const r2 = runCli(['evaluate', dir, '--spec', SPEC, '--collection', old]);
  assert.equal(r2.status, 2);
  assert.match(r2.stderr, /is not a Postman v2\.1 collection \(its info\.schema is .*v2\.0\.0/);

  rmSync(path.join(dir, 'run.sh'));
  const r3 = runCli(['evaluate', dir, '--spec', SPEC]);
  assert.equal(r3.status, 2);
  assert.match(r3.stderr, /no run\.sh in /);
  for (const r of [r1, r2, r3]) assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
