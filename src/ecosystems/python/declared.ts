/**
 * Python D1: the dependencies a project declares, from requirements.txt (pip's format, includes
 * followed) or else pyproject.toml (PEP 621, else Poetry).
 *
 * Conventions of the result: `name` is PEP 503-normalised; `version` is set only for an exact pin
 * (`==1.2` or `===1.2`); `id` is the requirement in canonical form (normalised name, sorted extras,
 * then the specifier or `@ url`; Poetry constraints as written in parentheses) when it says more than
 * the name; `source` is `<file>:<line>` (pyproject.toml: `<file>:<key path>`). Markers are evaluated
 * for the target interpreter (CPython 3.11 on Linux unless `markerEnv` says otherwise). A name
 * declared twice counts once, at its first declaration. `other` holds `constraints` (from `-c`
 * files), `optional:<extra>` and Poetry's `group:<name>`.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import type { DeclaredResult, Dependency } from '../../core/types.js';
import { pep503 } from '../../core/names.js';
import { localProjectName } from './local-project.js';
import { DEFAULT_MARKER_ENV, recordingMarkerEnv, type MarkerEnvironment } from './markers.js';
import { readPyproject } from './pyproject.js';
import { readRequirements } from './requirements.js';

export interface PythonDeclaredOptions {
  /** The target interpreter's marker values; see MARKER_ENV_SCRIPT in markers.ts for how to obtain them. */
  markerEnv?: MarkerEnvironment;
}

/** Present in any form: a directory or dangling symlink named like a manifest is an error when read, not absent. */
async function present(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => undefined)) !== undefined;
}

/** First declaration of each name; later ones become notes. */
function firstPerName(deps: readonly Dependency[], notes: string[]): Dependency[] {
  const first = new Map<string, Dependency>();
  for (const d of deps) {
    const earlier = first.get(d.name);
    if (earlier) notes.push(`${d.source}: ${d.name} is declared again (first at ${earlier.source}); counted once`);
    else first.set(d.name, d);
  }
  return [...first.values()];
}

export async function extractPythonDeclared(projectDir: string, opts: PythonDeclaredOptions = {}): Promise<DeclaredResult> {
  const assumed: Record<string, string> = {};
  const result = await readDeclared(projectDir, recordingMarkerEnv({ ...(opts.markerEnv ?? DEFAULT_MARKER_ENV) }, assumed));
  // The project's own distribution (what `pip install .` or `-e .` makes of it) is never its own dependency.
  const own = await localProjectName(projectDir);
  return { ...result, ...(own ? { own: [pep503(own)] } : {}), assumedEnvironment: assumed };
}

/** Whether `env` gives every marker variable the reading compared the value it assumed: then D1 is the same. */
export function agreesWithAssumptions(declared: DeclaredResult, env: MarkerEnvironment): boolean {
  return Object.entries(declared.assumedEnvironment ?? {}).every(([name, value]) => (env as unknown as Record<string, string>)[name] === value);
}

async function readDeclared(projectDir: string, markerEnv: MarkerEnvironment): Promise<DeclaredResult> {
  const ctx = { projectDir: path.resolve(projectDir), markerEnv };
  const requirementsTxt = path.join(ctx.projectDir, 'requirements.txt');
  const pyprojectToml = path.join(ctx.projectDir, 'pyproject.toml');

  if (await present(requirementsTxt)) {
    const r = await readRequirements(requirementsTxt, ctx);
    const notes = [...r.notes];
    if (await present(pyprojectToml)) notes.push('pyproject.toml is also present; requirements.txt was used, as the paper does');
    const declared = firstPerName(r.declared, notes);
    const other: Record<string, Dependency[]> = {};
    if (r.constraints.length) other['constraints'] = r.constraints;
    return { manifest: 'requirements.txt', declared, other, skipped: r.skipped, notes };
  }
  if (await present(pyprojectToml)) {
    const r = await readPyproject(pyprojectToml, 'pyproject.toml', ctx);
    const notes = [...r.notes];
    return { manifest: 'pyproject.toml', declared: firstPerName(r.declared, notes), other: r.other, skipped: r.skipped, notes };
  }
  const legacy: string[] = [];
  for (const f of ['setup.py', 'setup.cfg']) if (await present(path.join(ctx.projectDir, f))) legacy.push(f);
  const unread = legacy.length ? ` (${legacy.join(' and ')} ${legacy.length > 1 ? 'are' : 'is'} not read)` : '';
  throw new EnvproofError(
    `no Python manifest (requirements.txt or pyproject.toml) in ${projectDir}`,
    `write the dependencies to requirements.txt (one per line) or to [project].dependencies in pyproject.toml${unread}`,
  );
}
