/**
 * The `backend` suite: the Conduit API generated under layered constraints (seed 002). Eight frameworks × ten
 * constraint combinations = 80 tasks; the prompt, in envproof's own words, carries the contract given with
 * `--spec` (never bundled). Levels: L0 framework only; L1 one of Clean Architecture, SQLite, PostgreSQL;
 * L2 two of them (an ORM only with a database); L3 architecture, database and ORM.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { readOpenApiDocument } from '../verify/contract/openapi-document.js';
import { POSTGRES } from '../verify/postgres.js';
import type { Constraints, Database } from '../verify/types.js';
import type { Task, TaskSuite } from './types.js';

export type BackendLanguage = 'python' | 'javascript';

export interface Framework {
  id: string;
  name: string;
  language: BackendLanguage;
}

export const FRAMEWORKS: readonly Framework[] = [
  { id: 'flask', name: 'Flask', language: 'python' },
  { id: 'fastapi', name: 'FastAPI', language: 'python' },
  { id: 'django', name: 'Django', language: 'python' },
  { id: 'aiohttp', name: 'aiohttp', language: 'python' },
  { id: 'express', name: 'Express', language: 'javascript' },
  { id: 'fastify', name: 'Fastify', language: 'javascript' },
  { id: 'hono', name: 'Hono', language: 'javascript' },
  { id: 'koa', name: 'Koa', language: 'javascript' },
];

/** The port each runtime's prompt names. */
export const BACKEND_PORTS: Record<BackendLanguage, number> = { python: 8080, javascript: 3000 };
const RUNTIME: Record<BackendLanguage, string> = { python: 'Python 3.11', javascript: 'Node.js 20' };
const MANIFEST: Record<BackendLanguage, string> = { python: 'requirements.txt', javascript: 'package.json' };
const ORM: Record<BackendLanguage, 'sqlalchemy' | 'sequelize'> = { python: 'sqlalchemy', javascript: 'sequelize' };
const ORM_NAME = { sqlalchemy: 'SQLAlchemy', sequelize: 'Sequelize' } as const;

/** The three constraint axes of a task; the framework is always given. */
export interface BackendCombination {
  architecture: boolean;
  database?: Database;
  orm: boolean;
}

/** The ten valid combinations (an ORM needs a database), in level order. */
export const COMBINATIONS: readonly BackendCombination[] = [false, true].flatMap((architecture) =>
  ([undefined, 'sqlite', 'postgresql'] as const).flatMap((database) => [false, true].filter((orm) => !orm || database).map((orm) => ({ architecture, database, orm }))),
).sort((a, b) => level(a) - level(b));

export function level(c: BackendCombination): number {
  return Number(c.architecture) + Number(c.database !== undefined) + Number(c.orm);
}

export function combinationId(c: BackendCombination): string {
  const parts = [c.architecture ? 'clean' : '', c.database ?? '', c.orm ? 'orm' : ''].filter(Boolean);
  return parts.length ? parts.join('-') : 'baseline';
}

/** What a backend task is, beside the common task fields. */
export interface BackendTaskInfo {
  framework: string;
  language: BackendLanguage;
  level: number;
  constraints: Constraints;
  port: number;
}

export function constraintsOf(c: BackendCombination, language: BackendLanguage): Constraints {
  return { ...(c.architecture ? { architecture: 'clean' as const } : {}), ...(c.database ? { database: c.database } : {}), ...(c.orm ? { orm: ORM[language] } : {}) };
}

export function backendTasks(): (Task & { backend: BackendTaskInfo })[] {
  return FRAMEWORKS.flatMap((f) =>
    COMBINATIONS.map((c) => ({
      id: `${f.id}-${combinationId(c)}`,
      title: `Conduit API in ${f.name} (${combinationId(c)})`,
      domain: f.name,
      complexity: `L${level(c)}`,
      description: `The RealWorld Conduit REST API, generated with ${f.name}${c.architecture ? ', Clean Architecture' : ''}${c.database ? `, ${c.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}` : ''}${c.orm ? `, ${ORM_NAME[ORM[f.language]]}` : ''}.`,
      functionalRequirements: ['Every operation of the OpenAPI contract', 'GET /api/health-check answers 200', 'run.sh starts the server'],
      backend: { framework: f.id, language: f.language, level: level(c), constraints: constraintsOf(c, f.language), port: BACKEND_PORTS[f.language] },
    })),
  );
}

function architectureBlock(): string[] {
  return [
    '## Architecture',
    'Organise the code in the four layers of Clean Architecture, each in its own directory:',
    '- routes (or handlers, controllers): the HTTP layer; it parses requests and shapes responses;',
    '- services (or use cases): the application logic;',
    '- repositories (or data access): everything that reads or writes the database;',
    '- models (or entities): the domain objects.',
    'Dependencies point downwards only: routes may use services, services may use repositories and models, repositories may use models. A lower layer never imports a higher one.',
  ];
}

function databaseBlock(database: Database): string[] {
  if (database === 'sqlite') {
    return ['## Database', 'Store all data in SQLite, in a file in the project directory. The server creates its schema itself when it starts; nothing else prepares the database. Use no other database engine.'];
  }
  const p = POSTGRES;
  return [
    '## Database',
    `Store all data in PostgreSQL. A server is running for you at host ${p.host}, port ${p.port}, database ${p.database}, user ${p.user}, password ${p.password}; the same connection is in the environment variable DATABASE_URL (postgresql://${p.user}:${p.password}@${p.host}:${p.port}/${p.database}). The database is empty: the server creates its schema itself when it starts. Use no other database engine.`,
  ];
}

/** envproof's prompt for one backend task: the contract, then the requirements and the way it is evaluated. */
export function renderBackendPrompt(task: Task & { backend: BackendTaskInfo }, contractText: string): string {
  const b = task.backend;
  const framework = FRAMEWORKS.find((f) => f.id === b.framework)!;
  const orm = b.constraints.orm ? ORM_NAME[b.constraints.orm] : undefined;
  const lines = [
    'The following OpenAPI document is the contract of a REST API:',
    '',
    '```yaml',
    contractText.trimEnd(),
    '```',
    '',
    `Implement this API as a complete ${RUNTIME[b.language]} server in the current directory.`,
    '',
    '## Requirements',
    `- Use the ${framework.name} framework.`,
    ...(b.constraints.architecture ? ['- Follow the architecture described below.'] : []),
    ...(b.constraints.database ? ['- Use the database described below.'] : []),
    ...(orm ? [`- Access the database through the ${orm} ORM: define models and query through its API, not with raw SQL.`] : []),
    '- Every operation, request body, response body and status code must be as the contract says.',
    ...(b.constraints.architecture ? ['', ...architectureBlock()] : []),
    ...(b.constraints.database ? ['', ...databaseBlock(b.constraints.database)] : []),
    '',
    '## Files you must deliver',
    `- ${MANIFEST[b.language]}, listing every dependency with an exact version.`,
    '- run.sh, which starts the server in the foreground (it keeps running while the server serves).',
    '',
    '## Server',
    `- Listen on port ${b.port}, or on the port in the environment variable PORT when it is set.`,
    '- Every route of the contract is served under the prefix /api (for example POST /api/users).',
    '- GET /api/health-check answers 200 once the server is ready.',
    '',
    '## How your work is evaluated',
    `A clean machine with only ${RUNTIME[b.language]} installs ${MANIFEST[b.language]}, starts run.sh, and polls the health check. Then an HTTP test suite exercises every operation of the contract in one stateful sequence (users, profiles, articles, favourites, comments, tags) and checks status codes, response bodies against the contract's schemas, and that every change shows in later reads.`,
    ...(b.constraints.architecture || b.constraints.database || orm ? ['The code is also checked for the architecture, database and ORM required above.'] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** The backend suite over the contract at `spec`. */
export function loadBackendSuite(spec: string | undefined): TaskSuite {
  if (!spec) throw new UsageError('the backend suite needs the API contract', 'pass --spec <openapi.yml> (the RealWorld Conduit OpenAPI document)');
  readOpenApiDocument(spec);
  const text = readFileSync(spec, 'utf8');
  const tasks = backendTasks();
  return {
    name: 'backend',
    tasks,
    prompt(task: Task, language: EcosystemId) {
      const t = tasks.find((x) => x.id === task.id)!;
      if (language !== t.backend.language) throw new UsageError(`task ${t.id} is a ${t.backend.language} task`, `use --language ${t.backend.language}`);
      return renderBackendPrompt(t, text);
    },
  };
}
