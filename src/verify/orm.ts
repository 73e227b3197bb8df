/**
 * The ORM verifier, two rule sets side by side:
 * - `orm/paper-1`, the seed's evidence rule: the ORM is imported (SQLAlchemy: `sqlalchemy`; Sequelize:
 *   `sequelize`, or `new Sequelize(...)`) or named in a dependency file; other ORMs are not penalised.
 * - `orm/strict-1`: the ORM is really the data-access path: mapped models, queries through the ORM's API,
 *   and no raw SQL statement handed to any call (a driver's `execute`, `sequelize.query`, SQLAlchemy's
 *   `text`), no driver connection opened beside it. `SELECT 1` (a liveness check) is not data access.
 */
import path from 'node:path';
import type { SourceFacts } from './facts-types.js';
import { pep503 } from '../core/names.js';
import { parseRequirement } from '../ecosystems/python/pep508.js';
import { isTestFile } from './project-files.js';
import type { Evidence, Orm, Verdict, VerifierResult, VerifyInput } from './types.js';
import { readProjectFile } from '../core/safe-read.js';

export const ORM_PAPER_RULES = 'orm/paper-1';
export const ORM_STRICT_RULES = 'orm/strict-1';

interface OrmFacts {
  label: string;
  /** Top-level module names whose import is the paper's evidence. */
  modules: readonly string[];
  /** Dependency files searched for a declaration of the ORM. */
  dependencyFiles: RegExp;
  /** Whether a line of a dependency file declares the ORM (not merely names it, as a tool's section does). */
  declares(line: string): boolean;
  /** Modules that make a file part of the ORM's world (wrappers count: Flask-SQLAlchemy). */
  ormModules: readonly string[];
  isModel(s: SourceFacts): { what: string; line: number } | undefined;
  /** Last segments of calls that query or write through the ORM. */
  queryCalls: ReadonlySet<string>;
}

const lastSegment = (callee: string) => callee.split('.').at(-1)!.replace(/\(\)$/, '');
const rootName = (dotted: string) => dotted.split('.')[0]!.replace(/(\(\)|\[\])+$/, '');

/**
 * A requirement naming SQLAlchemy or a wrapper of it (Flask-SQLAlchemy), as a requirements line, a quoted
 * entry of a list, a `name = version` key (Poetry, Pipfile) or a setup.cfg value; section headers
 * (`[mypy-sqlalchemy.*]`) and tools' module patterns (`"sqlalchemy.*"`) are not requirements.
 */
function declaresSqlalchemy(line: string): boolean {
  const text = line.replace(/(^|\s)[#;].*$/, '').trim();
  if (text === '' || text.startsWith('[') || text.startsWith('-')) return false;
  const quoted = [...text.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]!);
  const eq = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*=(?!=)\s*(.*)$/.exec(text);
  const candidates = [...quoted, ...(eq ? [eq[1]!, eq[2]!] : [text])];
  return candidates.some((c) => {
    const r = parseRequirement(c);
    return r.ok && /^(.+-)?sqlalchemy$/.test(pep503(r.requirement.name));
  });
}
const imports = (s: SourceFacts, modules: readonly string[]) => s.imports.some((i) => modules.includes(i.spec.split(/[./]/)[0]!));

const ORMS: Record<Orm, OrmFacts> = {
  sqlalchemy: {
    label: 'SQLAlchemy',
    modules: ['sqlalchemy'],
    dependencyFiles: /(^|\/)(requirements[^/]*\.(txt|in)|pyproject\.toml|setup\.py|setup\.cfg|Pipfile)$/,
    declares: declaresSqlalchemy,
    ormModules: ['sqlalchemy', 'flask_sqlalchemy', 'sqlmodel'],
    isModel(s) {
      const cls = s.classes.find((c) => c.bases.some((b) => /(^|\.)(Model|Base|DeclarativeBase|SQLModel)$/.test(b) || /declarative_base\(\)$/.test(b)));
      if (cls) return { what: `mapped class ${cls.name}`, line: cls.line };
      const table = s.calls.find((c) => /(^|\.)(Table|mapped_column|Column)$/.test(c.callee));
      return table ? { what: `${table.callee}(...)`, line: table.line } : undefined;
    },
    queryCalls: new Set(['query', 'select', 'scalars', 'scalar', 'scalar_one', 'scalar_one_or_none', 'filter', 'filter_by', 'add', 'add_all', 'merge', 'delete', 'get', 'insert', 'update', 'where', 'join', 'order_by']),
  },
  sequelize: {
    label: 'Sequelize',
    modules: ['sequelize'],
    dependencyFiles: /(^|\/)package\.json$/,
    declares: (line) => /"sequelize"\s*:/.test(line),
    ormModules: ['sequelize', 'sequelize-typescript'],
    isModel(s) {
      const define = s.calls.find((c) => /\.(define|init)$/.test(c.callee));
      if (define) return { what: `${define.callee}(...)`, line: define.line };
      const cls = s.classes.find((c) => c.bases.some((b) => /(^|\.)Model$/.test(b)));
      return cls ? { what: `class ${cls.name} extends Model`, line: cls.line } : undefined;
    },
    queryCalls: new Set(['findAll', 'findOne', 'findByPk', 'findOrCreate', 'findAndCountAll', 'findCreateFind', 'create', 'bulkCreate', 'update', 'destroy', 'count', 'increment', 'decrement', 'upsert', 'save', 'reload', 'addTag', 'setTags']),
  },
};

/** A string that is an SQL statement (not `SELECT 1`, which only checks that the connection is alive). */
export const SQL_STATEMENT = /^\s*(SELECT\s+(?!1\s*;?\s*$)\S|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\S+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|INDEX|UNIQUE\s+INDEX)\s|DROP\s+TABLE\s|ALTER\s+TABLE\s|PRAGMA\s|WITH\s+\w+\s+AS\s*\()/i;

/** Opening a connection with a driver directly, beside the ORM. */
const DRIVER_CONNECT = /^(sqlite3\.connect|psycopg2\.connect|psycopg\.connect|asyncpg\.connect|asyncpg\.create_pool|aiosqlite\.connect|sqlite3\.Database|pg\.Pool|pg\.Client|Pool|Client|Database)$/;
const DRIVER_PACKAGES = ['sqlite3', 'better-sqlite3', 'pg', 'psycopg2', 'psycopg', 'asyncpg', 'aiosqlite'];

function paperVerdict(orm: OrmFacts, sources: readonly SourceFacts[], dependencyHits: Evidence[], newSequelize: Evidence[]): Verdict {
  const evidence: Evidence[] = [];
  for (const s of sources) {
    for (const i of s.imports) if (orm.modules.includes(i.spec.split(/[./]/)[0]!)) evidence.push({ file: s.file, line: i.line, message: `imports ${i.spec}` });
  }
  evidence.push(...newSequelize, ...dependencyHits);
  if (evidence.length === 0) return { rules: ORM_PAPER_RULES, passed: false, evidence: [{ file: '.', line: 0, message: `no evidence of ${orm.label}: not imported, not in a dependency file` }] };
  return { rules: ORM_PAPER_RULES, passed: true, evidence };
}

/** Method names that dicts, sets, strings or builtins have too (`os.environ.get`, `filter(...)`): ORM calls only on an ORM receiver. */
const AMBIGUOUS_CALLS = new Set(['get', 'add', 'update', 'delete', 'filter', 'join', 'merge', 'insert']);

/**
 * Names in a Python file that stand for an ORM object: names imported from the ORM's modules, mapped model
 * classes of the project, names imported from a project module that uses the ORM (`from app.db import db,
 * unit_of_work`), and names bound to any of these (`session: Session`, `with unit_of_work() as s`, `s = db.session`).
 */
function ormNames(orm: OrmFacts, s: SourceFacts, models: ReadonlySet<string>, ormFiles: readonly SourceFacts[]): Set<string> {
  const names = new Set(models);
  const ormStems = new Set(ormFiles.map((f) => f.file.replace(/(\/__init__)?\.py$/, '').split('/').at(-1)!));
  for (const i of s.imports) {
    const fromOrm = orm.ormModules.includes(i.spec.split('.')[0]!);
    if (fromOrm && i.names.length === 0) names.add(i.spec.split('.')[0]!);
    for (const n of i.names) if (fromOrm || ormStems.has(i.spec.split('.').at(-1)!) || ormStems.has(n)) names.add(n);
  }
  for (let grown = true; grown; ) {
    grown = false;
    for (const b of s.bindings) {
      if (!names.has(b.name) && names.has(rootName(b.value))) {
        names.add(b.name);
        grown = true;
      }
    }
  }
  return names;
}

function strictVerdict(orm: OrmFacts, sources: readonly SourceFacts[], paper: Verdict): Verdict {
  const problems: Evidence[] = [];
  const support: Evidence[] = [];
  if (!paper.passed) problems.push({ file: '.', line: 0, message: `${orm.label} is not used at all` });
  const ormFiles = sources.filter((s) => imports(s, orm.ormModules));
  const model = sources.map((s) => ({ s, found: imports(s, orm.ormModules) ? orm.isModel(s) : undefined })).find((m) => m.found);
  if (model) support.push({ file: model.s.file, line: model.found!.line, message: model.found!.what });
  else problems.push({ file: '.', line: 0, message: `no ${orm.label} model is defined` });
  const models = new Set(ormFiles.flatMap((s) => s.classes.filter((c) => orm.isModel({ ...s, classes: [c], calls: [] })).map((c) => c.name)));
  const isQuery = (s: SourceFacts, names: () => Set<string>) => (c: SourceFacts['calls'][number]) => {
    if (!orm.queryCalls.has(lastSegment(c.callee)) || (c.firstArg && SQL_STATEMENT.test(c.firstArg))) return false;
    return s.language !== 'python' || !AMBIGUOUS_CALLS.has(lastSegment(c.callee)) || names().has(rootName(c.callee));
  };
  // Queries may live in repositories that get the session or models from elsewhere: any file of the project counts.
  const query = sources.flatMap((s) => {
    let names: Set<string> | undefined;
    return s.calls.filter(isQuery(s, () => (names ??= ormNames(orm, s, models, ormFiles)))).map((c) => ({ s, c }));
  })[0];
  if (query && ormFiles.length > 0) support.push({ file: query.s.file, line: query.c.line, message: `queries through the ORM: ${query.c.callee}(...)` });
  else problems.push({ file: '.', line: 0, message: `no query goes through ${orm.label}'s API` });
  for (const s of sources) {
    for (const c of s.calls) {
      if (c.firstArg !== undefined && SQL_STATEMENT.test(c.firstArg)) {
        problems.push({ file: s.file, line: c.line, message: `raw SQL: ${c.callee}("${c.firstArg.trim().slice(0, 60)}")` });
      }
    }
    const drivers = s.imports.filter((i) => DRIVER_PACKAGES.includes(i.spec.split('.')[0]!));
    if (drivers.length === 0) continue;
    for (const c of s.calls) {
      if (DRIVER_CONNECT.test(c.callee) && (c.isNew || s.language === 'python')) problems.push({ file: s.file, line: c.line, message: `a driver connection beside the ORM: ${c.isNew ? 'new ' : ''}${c.callee}(...)` });
    }
  }
  return { rules: ORM_STRICT_RULES, passed: problems.length === 0, evidence: problems.length ? problems : support };
}

async function dependencyDeclarations(root: string, all: readonly string[], orm: OrmFacts): Promise<Evidence[]> {
  const out: Evidence[] = [];
  for (const rel of all.filter((f) => orm.dependencyFiles.test(f))) {
    const lines = (await readProjectFile(root, rel, 'utf8')).split('\n');
    lines.forEach((text, i) => {
      if (orm.declares(text)) out.push({ file: rel, line: i + 1, message: `${orm.label} in ${path.posix.basename(rel)}` });
    });
  }
  return out;
}

export async function verifyOrm(input: VerifyInput, required: Orm): Promise<VerifierResult> {
  const orm = ORMS[required];
  const sources = input.sources.filter((s) => !isTestFile(s.file) && s.language === (required === 'sqlalchemy' ? 'python' : 'javascript'));
  const newSequelize =
    required === 'sequelize'
      ? sources.flatMap((s) => s.calls.filter((c) => c.isNew && /(^|\.)Sequelize$/.test(c.callee)).map((c) => ({ file: s.file, line: c.line, message: 'new Sequelize(...)' })))
      : [];
  const paper = paperVerdict(orm, sources, await dependencyDeclarations(input.files.root, input.files.all, orm), newSequelize);
  return { name: 'orm', ...paper, strict: strictVerdict(orm, sources, paper) };
}
