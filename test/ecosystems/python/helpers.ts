import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeclaredResult } from '../../../src/core/types.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

const roots: string[] = [];

/** A throw-away project directory holding `files` (paths relative to it). */
export async function project(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'envproof-pymanifest-'));
  roots.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  return dir;
}

export async function removeProjects(): Promise<void> {
  await Promise.all(roots.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export function names(r: DeclaredResult): string[] {
  return r.declared.map((d) => d.name);
}

/** `reason @ source` per skipped entry, in order. */
export function skips(r: DeclaredResult): string[] {
  return r.skipped.map((s) => `${s.reason} @ ${s.source}`);
}

export function dep(r: DeclaredResult, name: string) {
  const d = r.declared.find((x) => x.name === name);
  if (!d) throw new Error(`${name} not declared; declared: ${names(r).join(', ')}`);
  return d;
}
