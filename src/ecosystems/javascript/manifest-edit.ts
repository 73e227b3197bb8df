/**
 * `envproof fix` for npm: package.json's `dependencies` edited with jsonc-parser's `modify`, which changes only the
 * member it is asked to (the rest of the file keeps its bytes, its key order and its indentation, detected from the
 * file). A hidden package listed in devDependencies moves to dependencies. Afterwards npm refreshes the lockfile.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { applyEdits, findNodeAtLocation, modify, parseTree, type FormattingOptions } from 'jsonc-parser';
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { DeclaredResult } from '../../core/types.js';
import type { EditOutcome, ManifestEdit, ManifestEditor, ManifestLocation } from '../outputs.js';
import { eolOf, lineNumber } from '../text-edits.js';
import type { AuditContext } from '../types.js';
import { MANIFEST } from './manifest.js';
import { parseAlias } from './names.js';
import { readProjectFile } from '../../core/safe-read.js';

function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: eolOf(text) };
}

/** A spec pinned to `version`, keeping an `npm:` alias; undefined for specs that are not version ranges (git, file:, tags). */
export function pinnedSpec(spec: string, version: string): string | undefined {
  const alias = parseAlias(spec);
  const range = alias ? alias.range : spec;
  if (!/^[\s\d^~<>=|xX*.v-]*$/.test(range) && !/^\d/.test(range)) return undefined;
  return alias ? `npm:${alias.realName}@${version}` : version;
}

/** The spec a hidden package is declared with: its exact version, or the alias npm installed it under. */
function addedSpec(edit: Extract<ManifestEdit, { kind: 'add' }>): string {
  return edit.id?.startsWith('npm:') ? edit.id : edit.version;
}

class JsonEditor {
  private readonly options: { formattingOptions: FormattingOptions };
  constructor(public text: string) {
    this.options = { formattingOptions: formatting(text) };
  }

  value(pathTo: string[]): unknown {
    const tree = parseTree(this.text);
    return tree && findNodeAtLocation(tree, pathTo)?.value;
  }

  /** Sets (or with undefined, removes) a member; a new member goes where alphabetical order puts it, as npm writes them. */
  set(pathTo: string[], value: string | undefined): void {
    const getInsertionIndex = (keys: string[]) => keys.filter((k) => k.localeCompare(pathTo.at(-1)!) < 0).length;
    this.text = applyEdits(this.text, modify(this.text, pathTo, value, { ...this.options, getInsertionIndex }));
  }
}

export const npmManifestEditor: ManifestEditor = {
  async locate(projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
    const text = await readProjectFile(projectDir, MANIFEST, 'utf8');
    const tree = parseTree(text);
    const out: Record<string, ManifestLocation> = {};
    for (const d of declared.declared) {
      const node = tree && findNodeAtLocation(tree, ['dependencies', d.name]);
      out[d.name] = { file: MANIFEST, ...(node?.parent ? { line: lineNumber(text, node.parent.offset) } : {}) };
    }
    return out;
  },

  async apply(projectDir: string, _declared: DeclaredResult, edits: readonly ManifestEdit[]): Promise<EditOutcome> {
    const before = await readProjectFile(projectDir, MANIFEST, 'utf8');
    const json = new JsonEditor(before);
    const outcome: EditOutcome = { changes: [], applied: [], refused: [] };
    for (const edit of edits) {
      if (edit.kind === 'add') {
        if (json.value(['devDependencies', edit.name]) !== undefined) json.set(['devDependencies', edit.name], undefined);
        json.set(['dependencies', edit.name], addedSpec(edit));
      } else if (edit.kind === 'remove') {
        json.set(['dependencies', edit.dependency.name], undefined);
      } else {
        const spec = json.value(['dependencies', edit.dependency.name]);
        const pinned = typeof spec === 'string' ? pinnedSpec(spec, edit.version) : undefined;
        if (!pinned) {
          outcome.refused.push({ edit, reason: `"${String(spec)}" is not a version range (a git, file or tag spec is pinned by the lockfile)` });
          continue;
        }
        json.set(['dependencies', edit.dependency.name], pinned);
      }
      outcome.applied.push(edit);
    }
    if (json.text !== before) outcome.changes.push({ file: MANIFEST, before, after: json.text });
    return outcome;
  },

  /** npm itself rewrites the lockfile for the edited package.json (no install, no scripts). */
  async refresh(ctx: AuditContext): Promise<string[]> {
    const lock = ['npm-shrinkwrap.json', 'package-lock.json'].find((f) => existsSync(path.join(ctx.host.projectDir, f)));
    if (!lock) return [];
    ctx.progress('npm install --package-lock-only (refreshing the lockfile)');
    const argv = ['npm', 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'];
    const r = await ctx.sandbox.exec({ argv, cwd: ctx.projectDir, timeoutMs: ctx.installTimeoutMs, network: true });
    if (r.exitCode !== 0 || r.timedOut) throw new StepFailedError('install', 'other', `${argv.join(' ')} failed after the fix`, tail(`${r.stdout}\n${r.stderr}`));
    return [lock];
  },
};
