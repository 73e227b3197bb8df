import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHARED } from '../helpers/cli.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const SPEC = path.join(SHARED, 'data/realworld/openapi.yml');
export const COLLECTION = path.join(SHARED, 'data/realworld/Conduit.postman_collection.json');

/** Writes a project tree `{ relative path: content }` into a fresh temporary directory. */
export function writeTree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-verify-'));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

export type Edit = { file: string; from: string; to: string };

/** Reference servers that share another's domain layers: the base's tree is laid first, their own over it. */
const REFERENCE_BASES: Record<string, string> = {
  'fastapi-sqlalchemy': 'flask-sqlalchemy',
  'django-sqlalchemy': 'flask-sqlalchemy',
  'koa-sequelize': 'express-sequelize',
  'fastify-sequelize': 'express-sequelize',
};

/**
 * A reference server as a tree: its common files plus one database's overlay (`<name>/common`, `<name>/<db>`),
 * with edits applied (each must match exactly once, so a fixture change cannot silently void a variant).
 */
export function referenceServer(name: string, database: 'sqlite' | 'postgresql', edits: readonly Edit[] = []): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `envproof-${name}-`));
  for (const layer of [...(REFERENCE_BASES[name] ? [REFERENCE_BASES[name]] : []), name]) {
    cpSync(path.join(FIXTURES, layer, 'common'), dir, { recursive: true });
    if (existsSync(path.join(FIXTURES, layer, database))) cpSync(path.join(FIXTURES, layer, database), dir, { recursive: true });
  }
  for (const e of edits) {
    const file = path.join(dir, e.file);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(e.from);
    if (at < 0 || text.indexOf(e.from, at + 1) >= 0) throw new Error(`edit of ${e.file}: "${e.from}" must occur exactly once`);
    writeFileSync(file, text.slice(0, at) + e.to + text.slice(at + e.from.length));
  }
  return dir;
}

/**
 * How many assertions the Conduit collection runs against a correct server on a fresh database, counted from
 * the collection's own test scripts (assignments `tests[...] =`), independently of Newman: list requests run
 * either their non-empty branch or their `else` branch. The lists are empty in the folder that runs before
 * any article exists, and in the feed of a user who follows nobody.
 */
export function expectedPostmanTotal(collection: { item: { name: string; item: { name: string; event?: { listen: string; script: { exec: string[] } }[] }[] }[] }): number {
  const assignments = (text: string) => (text.match(/tests\[[^\]]+\]\s*=(?!=)/g) ?? []).length;
  let total = 0;
  for (const folder of collection.item) {
    for (const request of folder.item) {
      const script = (request.event ?? []).filter((e) => e.listen === 'test').flatMap((e) => e.script.exec).join('\n');
      const branch = /if\s*\(\s*responseJSON\.(articles|comments)\.length\s*\)\s*\{/.exec(script);
      if (!branch) {
        total += assignments(script);
        continue;
      }
      const before = script.slice(0, branch.index);
      const rest = script.slice(branch.index + branch[0].length);
      const elseAt = rest.search(/\}\s*else\s*\{/);
      const [ifBlock, elseBlock] = elseAt < 0 ? [rest, ''] : [rest.slice(0, elseAt), rest.slice(elseAt)];
      const empty = folder.name === 'Articles' || request.name === 'Feed';
      total += assignments(before) + assignments(empty ? elseBlock : ifBlock);
    }
  }
  return total;
}
