// tier: quick
/**
 * The verifiers on the layouts and idioms of each framework family the backend suite names: one small project
 * each, its verdict and the line of its evidence (line numbers counted in the fixture's own text).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyProject } from '../../src/verify/verify.js';
import type { Verdict, VerifierResult } from '../../src/verify/types.js';
import { writeTree } from './helpers.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const where = (v: Verdict | undefined) => (v ? v.evidence.map((e) => `${e.file}:${e.line}`) : []);
async function verdict(files: Record<string, string>, constraints: Parameters<typeof verifyProject>[1]): Promise<Record<string, VerifierResult>> {
  const report = await verifyProject(writeTree(files), constraints);
  return Object.fromEntries(report.verifiers.map((v) => [v.name, v]));
}

const DJANGO_SETTINGS = lines(
  'from pathlib import Path',
  'BASE_DIR = Path(__file__).resolve().parent.parent',
  'ROOT_URLCONF = "conduit.urls"',
  'DATABASES = {',
  '    "default": {',
  '        "ENGINE": "django.db.backends.sqlite3",',
  '        "NAME": BASE_DIR / "db.sqlite3",',
  '    }',
  '}',
);
const DJANGO = {
  'manage.py': lines('import os', 'os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conduit.settings")'),
  'conduit/settings.py': DJANGO_SETTINGS,
  'conduit/urls.py': lines('from django.urls import path', 'from conduit.views import articles', 'urlpatterns = [path("api/articles", articles.listing)]'),
  'conduit/views/articles.py': lines('from django.http import JsonResponse', 'from conduit.services import articles', 'def listing(request):', '    return JsonResponse(articles.listing())'),
  'conduit/services/articles.py': lines('from conduit.repositories import articles', 'def listing():', '    return {"articles": articles.all()}'),
  'conduit/repositories/articles.py': lines('from conduit.models import Article', 'def all():', '    return list(Article.objects.all())'),
  'conduit/models/__init__.py': lines('from django.db import models', 'class Article(models.Model):', '    title = models.CharField(max_length=200)'),
};

test('Django: views/ is the routes layer; the engine is read from settings.py DATABASES, with its line', async () => {
  const ok = await verdict(DJANGO, { architecture: 'clean', database: 'sqlite' });
  assert.equal(ok.architecture!.passed, true, JSON.stringify(ok.architecture));
  assert.deepEqual(ok.architecture!.evidence.map((e) => e.message).sort(), ['models layer', 'repositories layer', 'routes layer', 'services layer']);
  assert.equal(ok.database!.passed, true);
  assert.deepEqual(ok.database!.evidence.map((e) => `${e.file}:${e.line} ${e.message}`), ['conduit/settings.py:6 SQLite: ENGINE = "django.db.backends.sqlite3"']);
  const pg = await verdict(DJANGO, { database: 'postgresql' });
  assert.equal(pg.database!.passed, false);
  assert.deepEqual(where(pg.database), ['.:0', 'conduit/settings.py:6']);
});

test("Django: an engine set key by key after the dict (DATABASES['default']['ENGINE'] = …) is evidence, so SQLite no longer holds", async () => {
  const files = { ...DJANGO, 'conduit/settings.py': `${DJANGO_SETTINGS}DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"\n` };
  const v = await verdict(files, { database: 'sqlite' });
  assert.equal(v.database!.passed, false);
  assert.deepEqual(v.database!.evidence.map((e) => `${e.file}:${e.line} ${e.message}`), ['conduit/settings.py:10 PostgreSQL: ENGINE = "django.db.backends.postgresql"']);
});

test("Django's own app layout (articles/views.py, articles/models.py) has no layer directories: the architecture fails, saying so", async () => {
  const v = await verdict({ 'conduit/settings.py': DJANGO_SETTINGS, 'articles/views.py': 'from articles.models import Article\n', 'articles/models.py': 'from django.db import models\n' }, { architecture: 'clean' });
  assert.equal(v.architecture!.passed, false);
  assert.match(v.architecture!.evidence[0]!.message, /^only 0 of the 4 layers are directories with source files: none; missing routes, services, repositories, models/);
});

test('FastAPI: routers/ as the routes layer; a session from Depends(get_db) annotated as Session queries through SQLAlchemy', async () => {
  const files = {
    'app/main.py': lines('from fastapi import FastAPI', 'from app.routers import articles', 'app = FastAPI()', 'app.include_router(articles.router, prefix="/api")'),
    'app/db/session.py': lines('from sqlalchemy import create_engine', 'from sqlalchemy.orm import sessionmaker', 'engine = create_engine("sqlite:///./conduit.db")', 'SessionLocal = sessionmaker(bind=engine)', '', 'def get_db():', '    db = SessionLocal()', '    try:', '        yield db', '    finally:', '        db.close()'),
    'app/routers/articles.py': lines('from fastapi import APIRouter, Depends', 'from sqlalchemy.orm import Session', 'from app.db.session import get_db', 'from app.services import articles', 'router = APIRouter()', '', '@router.get("/articles/{id}")', 'def read(id: int, db: Session = Depends(get_db)):', '    return articles.read(db, id)'),
    'app/services/articles.py': lines('from app.repositories import articles', 'def read(db, id):', '    return articles.by_id(db, id)'),
    'app/repositories/articles.py': lines('from sqlalchemy.orm import Session', 'from app.models.article import Article', '', 'def by_id(db: Session, id: int):', '    return db.get(Article, id)'),
    'app/models/article.py': lines('from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column', 'class Base(DeclarativeBase):', '    pass', 'class Article(Base):', '    __tablename__ = "articles"', '    id: Mapped[int] = mapped_column(primary_key=True)'),
    'requirements.txt': lines('fastapi==0.115.6', 'SQLAlchemy==2.0.36', 'uvicorn==0.34.0'),
  };
  const v = await verdict(files, { architecture: 'clean', database: 'sqlite', orm: 'sqlalchemy' });
  assert.equal(v.architecture!.passed, true, JSON.stringify(v.architecture));
  assert.deepEqual(where(v.database), ['app/db/session.py:3']);
  assert.deepEqual(where(v.orm), ['app/db/session.py:1', 'app/db/session.py:2', 'app/models/article.py:1', 'app/repositories/articles.py:1', 'app/routers/articles.py:2', 'requirements.txt:2']);
  assert.deepEqual(v.orm!.strict?.evidence.map((e) => `${e.file}:${e.line} ${e.message}`), ['app/models/article.py:2 mapped class Base', 'app/repositories/articles.py:5 queries through the ORM: db.get(...)']);
});

const KOA = {
  'package.json': JSON.stringify({ dependencies: { koa: '2.15.3', '@koa/router': '13.1.0', sequelize: '6.37.5', sqlite3: '5.1.7' } }, null, 2),
  'src/app.js': lines("const Koa = require('koa');", "const router = require('./routes');", 'const app = new Koa();', 'app.use(router.routes()).use(router.allowedMethods());'),
  'src/routes/index.js': lines("const Router = require('@koa/router');", "const articles = require('./articles');", "const router = new Router({ prefix: '/api' });", "router.use('/articles', articles.routes());", 'module.exports = router;'),
  'src/routes/articles.js': lines("const Router = require('@koa/router');", "const service = require('../services/articles');", 'const router = new Router();', "router.get('/', async (ctx) => { ctx.body = await service.listing(); });", 'module.exports = router;'),
  'src/services/articles.js': lines("const repo = require('../repositories/articles');", 'exports.listing = async () => ({ articles: await repo.all() });'),
  'src/repositories/articles.js': lines("const { Article } = require('../models');", 'exports.all = () => Article.findAll();'),
  'src/models/index.js': lines("const { Sequelize, DataTypes } = require('sequelize');", "const sequelize = new Sequelize({ dialect: 'sqlite', storage: 'conduit.sqlite' });", "exports.Article = sequelize.define('Article', { title: DataTypes.STRING });"),
};

test('Koa: the router module is the routes layer; a service that requires it to build a URL imports upward, at its line', async () => {
  const ok = await verdict(KOA, { architecture: 'clean', database: 'sqlite', orm: 'sequelize' });
  assert.deepEqual([ok.architecture!.passed, ok.database!.passed, ok.orm!.passed, ok.orm!.strict?.passed], [true, true, true, true]);
  assert.deepEqual(where(ok.database).sort(), ['package.json:6', 'src/models/index.js:2']);
  assert.deepEqual(where(ok.orm!.strict), ['src/models/index.js:3', 'src/repositories/articles.js:2']);
  const upward = { ...KOA, 'src/services/articles.js': lines("const repo = require('../repositories/articles');", "const router = require('../routes');", "exports.link = (slug) => router.url('article', slug);") };
  const bad = await verdict(upward, { architecture: 'clean' });
  assert.equal(bad.architecture!.passed, false);
  assert.deepEqual(bad.architecture!.evidence.map((e) => `${e.file}:${e.line} ${e.message}`), ['src/services/articles.js:2 services imports routes: "../routes" resolves to src/routes/index.js (a lower layer may not import a higher one)']);
});

test('Fastify: a database reached through a plug-in (@fastify/postgres, registered inside fastify-plugin) is PostgreSQL; plugins/ is no layer', async () => {
  const files = {
    'package.json': JSON.stringify({ dependencies: { fastify: '5.2.1', 'fastify-plugin': '5.0.1', '@fastify/autoload': '6.0.3', '@fastify/postgres': '6.1.0' } }, null, 2),
    'src/app.js': lines("const path = require('node:path');", "const autoload = require('@fastify/autoload');", 'module.exports = async (app) => {', "  app.register(require('./plugins/db'));", "  app.register(autoload, { dir: path.join(__dirname, 'routes'), options: { prefix: '/api' } });", '};'),
    'src/plugins/db.js': lines("const fp = require('fastify-plugin');", 'module.exports = fp(async (app) => {', "  app.register(require('@fastify/postgres'), { connectionString: process.env.DATABASE_URL });", '});'),
    'src/routes/articles.js': lines("const service = require('../services/articles');", "module.exports = async (app) => { app.get('/articles', async () => service.listing(app.pg)); };"),
    'src/services/articles.js': lines("const repo = require('../repositories/articles');", 'exports.listing = async (pg) => ({ articles: await repo.all(pg) });'),
    'src/repositories/articles.js': lines('exports.all = async (pg) => (await pg.query("SELECT * FROM articles")).rows;'),
  };
  const v = await verdict(files, { architecture: 'clean', database: 'postgresql' });
  assert.equal(v.architecture!.passed, true, JSON.stringify(v.architecture));
  assert.deepEqual(v.architecture!.evidence.map((e) => `${e.file} ${e.message}`), ['src/repositories repositories layer', 'src/routes routes layer', 'src/services services layer', '. no models layer (3 of 4 present is enough)']);
  assert.equal(v.database!.passed, true, JSON.stringify(v.database));
  assert.deepEqual(v.database!.evidence.map((e) => `${e.file}:${e.line} ${e.message}`).sort(), ['package.json:6 PostgreSQL: dependency @fastify/postgres', 'src/plugins/db.js:3 PostgreSQL: imports @fastify/postgres']);
  assert.equal((await verdict(files, { database: 'sqlite' })).database!.passed, false);
});
