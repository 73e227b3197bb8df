/**
 * What `envproof fix --pin --remove-phantom --dry-run` plans from a saved report, made comparable with
 * expectations written by hand: each edit as one line (`add numpy 2.0.2`, `pin chalk 4.1.2`, `remove ms`), and each
 * manifest file as the dry run's diff would leave it.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch } from 'diff';
import { runCliAsync } from './cli.js';

export interface PlannedFix {
  /** Sorted. */
  edits: string[];
  /** Every file the diff touches, after the diff, by its path in the project. */
  after: Record<string, string>;
  /** The `left alone` entries, `kind name`. */
  kept: string[];
}

function editLine(e: any): string {
  if (e.kind === 'add') return `add ${e.name} ${e.version}`;
  if (e.kind === 'pin') return `pin ${e.dependency.name} ${e.version}`;
  return `remove ${e.dependency.name}`;
}

export async function plannedFix(reportFile: string, dir: string): Promise<PlannedFix> {
  const r = await runCliAsync(['fix', '--from', reportFile, '--pin', '--remove-phantom', '--dry-run', '--json', '-q', '--sandbox', 'host']);
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.deepEqual(result.refused, [], 'nothing refused');
  const after: Record<string, string> = {};
  for (const patch of (result.diff as string).split(/(?=^--- a\/)/m).filter((p) => p.startsWith('--- a/'))) {
    const file = /^--- a\/(.+)$/m.exec(patch)![1]!;
    const patched = applyPatch(await readFile(path.join(dir, file), 'utf8'), patch);
    assert.equal(typeof patched, 'string', `the diff applies to ${file}`);
    after[file] = patched as string;
  }
  return { edits: result.applied.map(editLine).sort(), after, kept: result.kept.map((k: any) => `${k.kind} ${k.name}`).sort() };
}
