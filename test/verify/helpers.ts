import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * A reference server as a tree: its common files plus one database's overlay (`<name>/common`, `<name>/<db>`),
 * with edits applied (each must match exactly once, so a fixture change cannot silently void a variant).
 */
export function referenceServer(name: string, database: 'sqlite' | 'postgresql', edits: readonly Edit[] = []): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `envproof-${name}-`));
  cpSync(path.join(FIXTURES, name, 'common'), dir, { recursive: true });
  cpSync(path.join(FIXTURES, name, database), dir, { recursive: true });
  for (const e of edits) {
    const file = path.join(dir, e.file);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(e.from);
    if (at < 0 || text.indexOf(e.from, at + 1) >= 0) throw new Error(`edit of ${e.file}: "${e.from}" must occur exactly once`);
    writeFileSync(file, text.slice(0, at) + e.to + text.slice(at + e.from.length));
  }
  return dir;
}
