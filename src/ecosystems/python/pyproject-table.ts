import { parse as parseToml } from 'smol-toml';
import { readProjectFileIfExists } from '../../core/safe-read.js';

/** pyproject.toml as a table; undefined when there is none, or it is no TOML (the install then says why). */
export async function readPyprojectTable(projectDir: string): Promise<PyprojectTable | undefined> {
  const text = await readProjectFileIfExists(projectDir, 'pyproject.toml');
  if (text === undefined) return undefined;
  try {
    return parseToml(text) as PyprojectTable;
  } catch {
    return undefined;
  }
}

export interface PyprojectTable {
  project?: { 'requires-python'?: unknown; 'optional-dependencies'?: Record<string, unknown> };
  'dependency-groups'?: Record<string, unknown>;
}

