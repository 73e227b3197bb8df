/** The files of a project the verifiers read: sources, dependency manifests and configuration, without what installs create. */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { SourceFacts } from './facts-types.js';
import { pythonFacts } from './python-facts.js';
import { readProjectFile } from '../core/safe-read.js';

/** Directories an install, a build or a tool creates: never the project's own code. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '__pycache__', '.venv', 'venv', 'site-packages', 'dist', 'build', 'coverage', '.next', '.pytest_cache', '.mypy_cache', '.tox']);

/** Extensions of the JavaScript and TypeScript sources the TypeScript parser reads. */
const JS_EXTENSIONS = ['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx'];

/** Lock files list optional packages of every dialect (Sequelize's peers, ...): they are not evidence. */
export const LOCK_FILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'poetry.lock', 'Pipfile.lock', 'uv.lock', 'pdm.lock']);

/** Test code: a test database is not the server's engine. */
export function isTestFile(rel: string): boolean {
  const parts = rel.split('/');
  const base = parts.at(-1) ?? '';
  return (
    parts.slice(0, -1).some((d) => ['test', 'tests', '__tests__', 'spec', 'specs'].includes(d.toLowerCase())) ||
    /^test_.*\.py$|_test\.py$|^conftest\.py$|\.(test|spec)\.[cm]?[jt]sx?$/.test(base)
  );
}

export interface ProjectFiles {
  root: string;
  /** Every file, project-relative with `/`, sorted. */
  all: string[];
  python: string[];
  javascript: string[];
}

async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (SKIPPED_DIRS.has(d.name)) continue;
        // A virtual environment under any name.
        if ((await readdir(full)).includes('pyvenv.cfg')) continue;
        await visit(full);
      } else if (d.isFile() && !LOCK_FILES.has(d.name)) {
        out.push(path.relative(root, full).split(path.sep).join('/'));
      }
    }
  };
  await visit(root);
  return out.sort();
}

export async function listProjectFiles(root: string): Promise<ProjectFiles> {
  const all = await walk(root);
  return {
    root,
    all,
    python: all.filter((f) => f.endsWith('.py')),
    javascript: all.filter((f) => JS_EXTENSIONS.includes(path.extname(f).toLowerCase()) && !f.endsWith('.d.ts')),
  };
}

/** Parses every source file: Python through python3's `ast`, JavaScript and TypeScript through the TypeScript compiler. */
export async function parseSources(files: ProjectFiles): Promise<SourceFacts[]> {
  const py = await pythonFacts(files.python.map((f) => [f, path.join(files.root, f)] as const));
  // The TypeScript compiler is large: loaded only when there is something to parse.
  const { jsFacts } = files.javascript.length ? await import('./js-facts.js') : { jsFacts: undefined };
  const js: SourceFacts[] = [];
  for (const f of files.javascript) js.push(jsFacts!(f, await readProjectFile(files.root, f, 'utf8')));
  return [...py, ...js].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
