// tier: quick
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { verifyProject } from '../../src/verify/verify.js';
import type { VerifierResult } from '../../src/verify/types.js';
import { writeTree } from './helpers.js';

const byName = (vs: VerifierResult[], name: string) => vs.find((v) => v.name === name)!;

const LAYERED_PY = {
  'app/__init__.py': '',
  'app/routes/articles.py': 'from ..services import articles as service\nfrom app.models.article import Article\n',
  'app/services/articles.py': 'from app.repositories.articles import find\n',
  'app/repositories/articles.py': [
    '"""Never: from app.routes import articles (a docstring)."""',
    '# from app.routes import articles   (a comment)',
    'from ..models.article import Article',
    'SQL = "from app.routes import x"',
    'def find(session):',
    '    return session.query(Article).filter_by(slug="x").first()',
  ].join('\n'),
  'app/models/article.py': 'from sqlalchemy.orm import DeclarativeBase\nclass Base(DeclarativeBase):\n    pass\nclass Article(Base):\n    pass\n',
  'app/config.py': 'DATABASE_URL = "postgresql+psycopg2://user:password@localhost:5432/conduit"\n',
  'requirements.txt': 'SQLAlchemy==2.0.36\npsycopg2-binary==2.9.10\n',
};

test('architecture: imports in docstrings, comments and strings do not count; relative imports do', async () => {
  const clean = await verifyProject(writeTree(LAYERED_PY), { architecture: 'clean' });
  assert.equal(byName(clean.verifiers, 'architecture').passed, true, JSON.stringify(clean.verifiers));

  const upward = writeTree({ ...LAYERED_PY, 'app/repositories/articles.py': `${LAYERED_PY['app/repositories/articles.py']}\nfrom ..routes import articles\n` });
  const v = byName((await verifyProject(upward, { architecture: 'clean' })).verifiers, 'architecture');
  assert.equal(v.passed, false);
  assert.deepEqual(v.evidence.map((e) => [e.file, e.line]), [['app/repositories/articles.py', 7]]);
  assert.match(v.evidence[0]!.message, /repositories imports routes: "\.\.routes" resolves to app\/routes\/articles\.py/);
});

test('architecture: JavaScript and TypeScript imports, require, re-exports and path aliases, read by the TypeScript parser', async () => {
  const tree = {
    'src/routes/users.ts': "import { register } from '../services/users.js';\nexport * from './index';\n",
    'src/routes/index.ts': '',
    'src/services/users.ts': "import repo = require('../repositories/users');\n// import x from '../routes/users';\nconst s = `import '../routes/users'`;\n",
    'src/repositories/users.ts': "import type { User } from '@/models/user';\nconst lazy = () => import('../models/user');\n",
    'src/models/user.ts': "export interface User { id: number }\n",
  };
  assert.equal(byName((await verifyProject(writeTree(tree), { architecture: 'clean' })).verifiers, 'architecture').passed, true);
  const bad = writeTree({ ...tree, 'src/models/user.ts': "const { router } = require('../routes/users');\nexport interface User { id: number }\n" });
  const v = byName((await verifyProject(bad, { architecture: 'clean' })).verifiers, 'architecture');
  assert.deepEqual(v.evidence.map((e) => `${e.file}:${e.line}`), ['src/models/user.ts:1']);
  assert.match(v.evidence[0]!.message, /models imports routes/);
});

test('architecture: fewer than three layer directories fail, with what is missing', async () => {
  const v = byName((await verifyProject(writeTree({ 'app.py': 'import flask\n', 'models/user.py': '' }), { architecture: 'clean' })).verifiers, 'architecture');
  assert.equal(v.passed, false);
  assert.match(v.evidence[0]!.message, /only 1 of the 4 layers .* models \(models\); missing routes, services, repositories/);
});

test('database: the required engine and none of the other; lock files and tests are not evidence', async () => {
  const pg = await verifyProject(writeTree({ ...LAYERED_PY, 'package-lock.json': '{"sqlite3": "5"}', 'tests/test_db.py': 'import sqlite3\n' }), { database: 'postgresql' });
  const ok = byName(pg.verifiers, 'database');
  assert.equal(ok.passed, true, JSON.stringify(ok.evidence));
  assert.deepEqual(ok.evidence.map((e) => `${e.file}:${e.line}`).sort(), ['app/config.py:1', 'requirements.txt:2']);

  const mixed = writeTree({ ...LAYERED_PY, '.env': '# DATABASE_URL=postgresql://x\nFALLBACK=sqlite:///conduit.db\n' });
  const bad = byName((await verifyProject(mixed, { database: 'postgresql' })).verifiers, 'database');
  assert.equal(bad.passed, false);
  assert.deepEqual(bad.evidence.map((e) => `${e.file}:${e.line}`), ['.env:2']);

  const none = byName((await verifyProject(mixed, { database: 'sqlite' })).verifiers, 'database');
  assert.equal(none.passed, false, 'PostgreSQL evidence is there too');
});

test('database: Django, the last DATABASES assignment overrides the earlier ones; Sequelize dialect and npm packages', async () => {
  const settings = [
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': 'db.sqlite3'}}",
    'DEBUG = True',
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'HOST': 'localhost'}}",
  ].join('\n');
  const dj = byName((await verifyProject(writeTree({ 'conduit/settings.py': settings }), { database: 'postgresql' })).verifiers, 'database');
  assert.equal(dj.passed, true, JSON.stringify(dj.evidence));
  const reversed = settings.split('\n').reverse().join('\n');
  assert.equal(byName((await verifyProject(writeTree({ 'conduit/settings.py': reversed }), { database: 'postgresql' })).verifiers, 'database').passed, false);

  const node = writeTree({
    'package.json': JSON.stringify({ dependencies: { sequelize: '6.37.5', sqlite3: '5.1.7' }, devDependencies: { pg: '8' } }, null, 2),
    'src/db.js': "const { Sequelize } = require('sequelize');\nmodule.exports = new Sequelize({ dialect: 'sqlite', storage: 'conduit.sqlite' });\n",
  });
  const sq = byName((await verifyProject(node, { database: 'sqlite' })).verifiers, 'database');
  assert.equal(sq.passed, true, JSON.stringify(sq.evidence));
  assert.deepEqual(sq.evidence.map((e) => `${e.file}:${e.line}`).sort(), ['package.json:4', 'src/db.js:2']);
});

test('orm: the paper rule passes on an import or a dependency mention; the strict rule needs ORM queries and no raw SQL', async () => {
  const ok = byName((await verifyProject(writeTree(LAYERED_PY), { orm: 'sqlalchemy' })).verifiers, 'orm');
  assert.equal(ok.passed, true);
  assert.equal(ok.strict?.passed, true, JSON.stringify(ok.strict));

  const raw = writeTree({
    ...LAYERED_PY,
    'app/repositories/articles.py': 'import sqlite3\nfrom sqlalchemy import text\ndef find(db):\n    return db.execute(text("SELECT * FROM articles WHERE slug = :s"))\n',
  });
  const r = byName((await verifyProject(raw, { orm: 'sqlalchemy' })).verifiers, 'orm');
  assert.equal(r.passed, true, 'the paper rule only asks for evidence of SQLAlchemy');
  assert.equal(r.strict?.passed, false);
  assert.deepEqual(r.strict?.evidence.map((e) => `${e.file}:${e.line}`), ['.:0', 'app/repositories/articles.py:4']);
  assert.match(r.strict!.evidence[1]!.message, /raw SQL: text\("SELECT \* FROM articles/);

  const none = byName((await verifyProject(writeTree({ 'app.py': 'import sqlite3\n', 'requirements.txt': 'flask==3.1.0\n' }), { orm: 'sqlalchemy' })).verifiers, 'orm');
  assert.equal(none.passed, false);
});

test('envproof verify: JSON shape and exit codes 0, 1, 2', () => {
  const dir = writeTree(LAYERED_PY);
  const ok = runCli(['verify', dir, '--architecture', 'clean', '--database', 'postgresql', '--orm', 'sqlalchemy', '--json']);
  assert.equal(ok.status, 0, ok.stderr);
  const report = JSON.parse(ok.stdout);
  assert.equal(report.schemaVersion, 1);
  assert.deepEqual(report.verifiers.map((v: VerifierResult) => [v.name, v.passed, v.rules]), [
    ['architecture', true, 'architecture/1'],
    ['database', true, 'database/2'],
    ['orm', true, 'orm/paper-1'],
  ]);
  for (const v of report.verifiers) for (const e of v.evidence) assert.deepEqual(Object.keys(e).sort(), ['file', 'line', 'message']);

  assert.equal(runCli(['verify', dir, '--database', 'sqlite']).status, 1);
  const none = runCli(['verify', dir]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /nothing to verify/);
  const missing = runCli(['verify', '/nonexistent/dir', '--orm', 'sequelize']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no such directory/);
});

test('orm paper rule: a tool section naming sqlalchemy is not a dependency declaration; install_requires and Poetry keys are', async () => {
  const paper = async (files: Record<string, string>) => byName((await verifyProject(writeTree({ 'app.py': 'import sqlite3\n', ...files }), { orm: 'sqlalchemy' })).verifiers, 'orm');
  const mypy = await paper({ 'setup.cfg': '[metadata]\nname = conduit\n\n[mypy-sqlalchemy.*]\nignore_missing_imports = True\n' });
  assert.equal(mypy.passed, false, JSON.stringify(mypy.evidence));
  const overrides = await paper({ 'pyproject.toml': '[project]\nname = "conduit"\n\n[[tool.mypy.overrides]]\nmodule = "sqlalchemy.*"\n\n[tool.mypy]\nplugins = ["sqlalchemy.ext.mypy.plugin"]\n' });
  assert.equal(overrides.passed, false, JSON.stringify(overrides.evidence));

  const cfg = await paper({ 'setup.cfg': '[options]\ninstall_requires =\n    flask==3.1.0\n    SQLAlchemy>=2.0  # the ORM\n' });
  assert.deepEqual(cfg.evidence.map((e) => `${e.file}:${e.line}`), ['setup.cfg:4']);
  const poetry = await paper({ 'pyproject.toml': '[tool.poetry.dependencies]\npython = "^3.11"\nFlask-SQLAlchemy = "^3.1"\n' });
  assert.deepEqual(poetry.evidence.map((e) => `${e.file}:${e.line}`), ['pyproject.toml:3']);
  const pep621 = await paper({ 'pyproject.toml': '[project]\nname = "conduit"\ndependencies = [\n  "flask==3.1.0",\n  "sqlalchemy[asyncio]==2.0.36",\n]\n' });
  assert.deepEqual(pep621.evidence.map((e) => `${e.file}:${e.line}`), ['pyproject.toml:5']);
});

test('orm strict rule: a .get on a dict, os.environ or app.config is not a query; on a session or a model it is; evidence has its line', async () => {
  const MODELS = 'from sqlalchemy import Column, Integer, MetaData, Table\nmetadata = MetaData()\nusers = Table("users", metadata, Column("id", Integer, primary_key=True))\n';
  const strict = async (code: string) => byName((await verifyProject(writeTree({ 'app/models.py': MODELS, 'app/repo.py': code, 'requirements.txt': 'SQLAlchemy==2.0.36\n' }), { orm: 'sqlalchemy' })).verifiers, 'orm').strict!;
  const notOrm = await strict(['import os', 'from flask import Flask', 'app = Flask(__name__)', 'cache = {}', 'def find(key):', '    return cache.get(key) or os.environ.get("USER") or app.config.get("DEBUG") or filter(None, [key])', ''].join('\n'));
  assert.equal(notOrm.passed, false);
  assert.deepEqual(notOrm.evidence.map((e) => e.message), ["no query goes through SQLAlchemy's API"]);

  const viaSession = await strict(['from sqlalchemy.orm import Session', 'from app.models import users', 'def find(session: Session, key):', '    return session.get(users, key)', ''].join('\n'));
  assert.equal(viaSession.passed, true, JSON.stringify(viaSession.evidence));
  assert.deepEqual(viaSession.evidence.map((e) => `${e.file}:${e.line} ${e.message}`), ['app/models.py:3 Table(...)', 'app/repo.py:4 queries through the ORM: session.get(...)']);

  const viaFactory = await strict(['from app.db import unit_of_work', 'def find(key):', '    with unit_of_work() as s:', '        return s.get(dict, key)', ''].join('\n'));
  const withDb = byName((await verifyProject(writeTree({ 'app/models.py': MODELS, 'app/db.py': 'from sqlalchemy.orm import sessionmaker\nSession = sessionmaker()\ndef unit_of_work():\n    return Session()\n', 'app/repo.py': ['from app.db import unit_of_work', 'def find(key):', '    with unit_of_work() as s:', '        return s.get(dict, key)', ''].join('\n'), 'requirements.txt': 'SQLAlchemy==2.0.36\n' }), { orm: 'sqlalchemy' })).verifiers, 'orm').strict!;
  assert.equal(viaFactory.passed, false, 'without app/db.py, unit_of_work is not known to be the ORM');
  assert.equal(withDb.passed, true, JSON.stringify(withDb.evidence));
  assert.deepEqual(withDb.evidence.map((e) => `${e.file}:${e.line}`), ['app/models.py:3', 'app/repo.py:4']);
});
