import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isFile } from '../../core/fs.js';

/** Files at the top of a project that are tooling, never the program. */
const NOT_PROGRAMS = new Set(['setup.py', 'conftest.py', 'noxfile.py', 'fabfile.py', 'manage.py']);

export interface PythonEntry {
  /** Arguments after the interpreter. */
  args: string[];
  /** A console script of the project, installed in the environment's bin directory: run by its name. */
  script?: string;
  reason: string;
  /** Extra PYTHONPATH entry (relative to the project) for src layouts. */
  pythonPath?: string;
}

/**
 * The program's default command: the single top-level script, else main.py or app.py, else the first of the
 * project's console scripts that the install put in the environment (`installedScripts`), else
 * `python -m <package>` for a package with __main__.py (top level or under src/). Undefined when none fits.
 */
export async function findPythonEntry(projectDir: string, installedScripts: readonly string[] = []): Promise<PythonEntry | undefined> {
  const top = await readdir(projectDir, { withFileTypes: true });
  const scripts = top
    .filter((e) => e.isFile() && e.name.endsWith('.py') && !NOT_PROGRAMS.has(e.name) && !/^test_|_test\.py$/.test(e.name))
    .map((e) => e.name)
    .sort();
  if (scripts.length === 1) return { args: [scripts[0]!], reason: `the only top-level script, ${scripts[0]}` };
  for (const name of ['main.py', 'app.py', '__main__.py']) {
    if (scripts.includes(name)) return { args: [name], reason: `top-level ${name}` };
  }
  const script = installedScripts[0];
  if (script) return { args: [], script, reason: `the console script "${script}" of pyproject.toml (installed with the project)` };
  for (const base of ['', 'src']) {
    const dir = path.join(projectDir, base);
    const subdirs = (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    for (const pkg of subdirs) {
      if (await isFile(path.join(dir, pkg, '__main__.py'))) {
        return {
          args: ['-m', pkg],
          reason: `package ${base ? `${base}/` : ''}${pkg} has __main__.py`,
          pythonPath: base || undefined,
        };
      }
    }
  }
  return undefined;
}
