/**
 * The database verifier: evidence of the required engine and none of the other one. Evidence comes from
 * parsed imports, string literals (connection URLs), keyed values (Sequelize/knex `dialect`/`client`, Django
 * `ENGINE`), the dependency manifests, and connection URLs in configuration files. Lock files and test code
 * are not evidence. In a Django settings module only the last `DATABASES` assignment counts.
 */
import path from 'node:path';
import { pep503 } from '../core/names.js';
import type { SourceFacts } from './facts-types.js';
import { isTestFile } from './project-files.js';
import type { Database, Evidence, VerifierResult, VerifyInput } from './types.js';
import { readProjectFile } from '../core/safe-read.js';

export const DATABASE_RULES = 'database/2';

const LABEL: Record<Database, string> = { postgresql: 'PostgreSQL', sqlite: 'SQLite' };

/** Top-level modules (Python) and packages (npm) that are drivers of one engine, or framework plug-ins wrapping one. */
const DRIVER_MODULES: Record<Database, readonly string[]> = {
  postgresql: ['psycopg2', 'psycopg', 'asyncpg', 'pg8000', 'pg', 'pg-promise', 'postgres', 'pg-native', '@neondatabase/serverless', '@fastify/postgres'],
  sqlite: ['sqlite3', 'aiosqlite', 'pysqlite2', 'pysqlite3', 'better-sqlite3', 'sqlite', '@libsql/client', 'fastify-sqlite'],
};
/** Import paths that name one engine's dialect inside an ORM. */
const DIALECT_MODULES: Record<Database, RegExp> = {
  postgresql: /^sqlalchemy\.dialects\.postgresql\b/,
  sqlite: /^sqlalchemy\.dialects\.sqlite\b/,
};
/** Distribution names (PEP 503) and npm names in dependency manifests. */
const PACKAGES: Record<Database, readonly string[]> = {
  postgresql: ['psycopg2', 'psycopg2-binary', 'psycopg', 'psycopg-binary', 'asyncpg', 'pg8000', 'pg', 'pg-promise', 'postgres', 'pg-native', '@fastify/postgres'],
  sqlite: ['aiosqlite', 'pysqlite3', 'pysqlite3-binary', 'sqlite3', 'better-sqlite3', 'sqlite', 'fastify-sqlite'],
};
const URL: Record<Database, RegExp> = {
  postgresql: /\bpostgres(?:ql)?(?:\+\w+)?:\/\//i,
  sqlite: /\bsqlite(?:3)?(?:\+\w+)?:(?:\/\/|memory)|^:memory:$/i,
};
/** `dialect: 'postgres'` (Sequelize), `client: 'pg'` (knex), `ENGINE: 'django.db.backends.postgresql'`. */
const KEYED: Record<Database, RegExp> = {
  postgresql: /^(postgres|postgresql|pg|django\.db\.backends\.postgresql(_psycopg2)?|django\.contrib\.gis\.db\.backends\.postgis)$/i,
  sqlite: /^(sqlite|sqlite3|better-sqlite3|django\.db\.backends\.sqlite3|django\.contrib\.gis\.db\.backends\.spatialite)$/i,
};
const ENGINE_KEYS = new Set(['dialect', 'client', 'engine', 'ENGINE', 'dialectModule', 'driver', 'type', 'provider']);

/** Configuration files whose lines may hold connection URLs. */
const CONFIG_FILE = /(^|\/)(\.env(\..*)?|[^/]*\.(ini|cfg|conf|toml|ya?ml|json|sh|env)|Dockerfile|Procfile)$/;

type Found = Evidence & { engine: Database };

function topModule(spec: string, language: SourceFacts['language']): string {
  if (language === 'python') return spec.split('.')[0] ?? spec;
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);
}

/** Line ranges of a Python module's `DATABASES` assignments that a later one overrides. */
function overriddenRanges(s: SourceFacts): [number, number][] {
  const assigns = s.assignments.filter((a) => /^DATABASES\b/.test(a.target)).sort((a, b) => a.line - b.line);
  const whole = assigns.filter((a) => a.target === 'DATABASES');
  const last = whole.at(-1);
  if (!last) return [];
  // A whole-dict assignment overrides every DATABASES assignment before it (whole or per key).
  return assigns.filter((a) => a.line < last.line).map((a) => [a.line, a.endLine]);
}

function sourceEvidence(s: SourceFacts): Found[] {
  const out: Found[] = [];
  const masked = overriddenRanges(s);
  const live = (line: number) => !masked.some(([a, b]) => line >= a && line <= b);
  const engines = Object.keys(LABEL) as Database[];
  for (const imp of s.imports) {
    const top = topModule(imp.spec, s.language);
    for (const e of engines) {
      if (DRIVER_MODULES[e].includes(top) || DIALECT_MODULES[e].test(imp.spec)) out.push({ engine: e, file: s.file, line: imp.line, message: `${LABEL[e]}: imports ${imp.spec}` });
    }
  }
  for (const str of s.strings) {
    if (!live(str.line)) continue;
    for (const e of engines) if (URL[e].test(str.value)) out.push({ engine: e, file: s.file, line: str.line, message: `${LABEL[e]}: connection string "${str.value.slice(0, 80)}"` });
  }
  for (const kv of s.keyValues) {
    if (!live(kv.line) || !ENGINE_KEYS.has(kv.key)) continue;
    for (const e of engines) if (KEYED[e].test(kv.value)) out.push({ engine: e, file: s.file, line: kv.line, message: `${LABEL[e]}: ${kv.key} = "${kv.value}"` });
  }
  return out;
}

/** The line of `"name":` inside package.json's `"dependencies"` object (1-based; 0 if it cannot be told). */
function dependencyLine(text: string, name: string): number {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /"dependencies"\s*:/.test(l));
  const key = `"${name}"`;
  const at = start < 0 ? -1 : lines.findIndex((l, i) => (i === start ? l.slice(l.indexOf('"dependencies"')) : i > start ? l : '').includes(key));
  return at < 0 ? 0 : at + 1;
}

async function manifestEvidence(root: string, all: readonly string[]): Promise<Found[]> {
  const out: Found[] = [];
  const engines = Object.keys(LABEL) as Database[];
  for (const rel of all) {
    const base = path.posix.basename(rel);
    if (isTestFile(rel)) continue;
    if (base === 'package.json' && !rel.includes('node_modules/')) {
      let pkg: { dependencies?: Record<string, string> };
      const text = await readProjectFile(root, rel, 'utf8');
      try {
        pkg = JSON.parse(text) as typeof pkg;
      } catch {
        continue;
      }
      for (const name of Object.keys(pkg.dependencies ?? {})) {
        for (const e of engines) if (PACKAGES[e].includes(name)) out.push({ engine: e, file: rel, line: dependencyLine(text, name), message: `${LABEL[e]}: dependency ${name}` });
      }
    } else if (/^requirements[^/]*\.(txt|in)$/.test(base) || base === 'pyproject.toml') {
      const lines = (await readProjectFile(root, rel, 'utf8')).split('\n');
      lines.forEach((text, i) => {
        const m = /^\s*["']?([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(text.replace(/#.*/, ''));
        if (!m) return;
        const name = pep503(m[1]!);
        for (const e of engines) if (PACKAGES[e].includes(name)) out.push({ engine: e, file: rel, line: i + 1, message: `${LABEL[e]}: dependency ${m[1]}` });
      });
    } else if (CONFIG_FILE.test(rel) && base !== 'package.json' && base !== 'tsconfig.json') {
      const lines = (await readProjectFile(root, rel, 'utf8').catch(() => '')).split('\n');
      lines.forEach((text, i) => {
        if (/^\s*(#|\/\/)/.test(text)) return;
        for (const e of engines) if (URL[e].test(text)) out.push({ engine: e, file: rel, line: i + 1, message: `${LABEL[e]}: connection string in configuration` });
      });
    }
  }
  return out;
}

export async function verifyDatabase(input: VerifyInput, required: Database): Promise<VerifierResult> {
  const other: Database = required === 'postgresql' ? 'sqlite' : 'postgresql';
  const found = [...input.sources.filter((s) => !isTestFile(s.file)).flatMap(sourceEvidence), ...(await manifestEvidence(input.files.root, input.files.all))];
  const strip = ({ engine: _engine, ...e }: Found): Evidence => e;
  const mine = found.filter((f) => f.engine === required).map(strip);
  const theirs = found.filter((f) => f.engine === other).map(strip);
  const evidence: Evidence[] = [...theirs];
  if (mine.length === 0) evidence.unshift({ file: '.', line: 0, message: `no evidence of ${LABEL[required]} (driver import, connection string, dialect, engine setting or dependency)` });
  const passed = mine.length > 0 && theirs.length === 0;
  return { name: 'database', rules: DATABASE_RULES, passed, evidence: passed ? mine : evidence };
}
