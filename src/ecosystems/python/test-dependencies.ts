/**
 * Where a Python project keeps the tools its tests need outside its install: requirements-test.txt and the like,
 * `[project.optional-dependencies]` test or dev, PEP 735 `[dependency-groups]`, tox.ini's `deps`. Each is turned
 * into a pip command for the project's environment; test-named ones come before dev-named ones.
 */
import { readdir } from 'node:fs/promises';
import { shellCommandLine } from '../../core/shell.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';
import type { TestDependencies } from '../repro-facts.js';
import { readPyprojectTable } from './pyproject-table.js';

const TEST_GROUPS = ['test', 'tests', 'testing'];
const DEV_GROUPS = ['dev', 'develop', 'development'];

/** 0 for a test-named group, 1 for a dev-named one, undefined for another. */
function rank(group: string): number | undefined {
  const g = group.toLowerCase();
  return TEST_GROUPS.includes(g) ? 0 : DEV_GROUPS.includes(g) ? 1 : undefined;
}

const pip = (args: readonly string[]) => shellCommandLine(['pip', 'install', ...args]);

const REQUIREMENTS_FILE = /^(?:requirements[-_](\w+)|(\w+)[-_]requirements)\.txt$/i;

async function requirementsFiles(projectDir: string): Promise<[number, TestDependencies][]> {
  const names = (await readdir(projectDir).catch(() => [] as string[])).sort();
  return names.flatMap((name): [number, TestDependencies][] => {
    const m = REQUIREMENTS_FILE.exec(name);
    const r = m ? rank(m[1] ?? m[2]!) : undefined;
    return r === undefined ? [] : [[r, { command: pip(['-r', name]), source: name }]];
  });
}

/** A PEP 735 group's requirements, its `{include-group = "..."}` entries expanded (a cycle ends the expansion). */
function groupRequirements(groups: Record<string, unknown>, name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const entries = groups[name];
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((e): string[] => {
    if (typeof e === 'string') return [e];
    const include = (e as { 'include-group'?: unknown })?.['include-group'];
    return typeof include === 'string' ? groupRequirements(groups, include, seen) : [];
  });
}

async function pyprojectGroups(projectDir: string): Promise<[number, TestDependencies][]> {
  const table = await readPyprojectTable(projectDir);
  const out: [number, TestDependencies][] = [];
  for (const extra of Object.keys(table?.project?.['optional-dependencies'] ?? {})) {
    const r = rank(extra);
    if (r !== undefined) out.push([r, { command: pip([`.[${extra}]`]), source: `pyproject.toml [project.optional-dependencies] ${extra}` }]);
  }
  const groups = table?.['dependency-groups'] ?? {};
  for (const group of Object.keys(groups)) {
    const r = rank(group);
    const reqs = r === undefined ? [] : groupRequirements(groups, group);
    // pip reads dependency groups only from 25.1 on (--group); the environment's pip is given the requirements.
    if (reqs.length) out.push([r!, { command: pip(reqs), source: `pyproject.toml [dependency-groups] ${group}` }]);
  }
  return out;
}

/** tox.ini's `[testenv]` deps: requirement lines and `-r`/`-c` files; a line with a tox substitution (`{...}`) is left out. */
export function toxDeps(text: string): string[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === '[testenv]');
  if (start < 0) return [];
  const args: string[] = [];
  let inDeps = false;
  for (const raw of lines.slice(start + 1)) {
    if (/^\[/.test(raw)) break;
    const key = /^(\w[\w-]*)\s*=\s*(.*)$/.exec(raw);
    if (key) {
      inDeps = key[1] === 'deps';
      if (!inDeps) continue;
    } else if (!inDeps || !/^\s/.test(raw)) {
      if (raw.trim()) inDeps = false;
      continue;
    }
    const line = (key ? key[2]! : raw).replace(/(^|\s)#.*$/, '').trim();
    if (!line || line.includes('{')) continue;
    const file = /^-([rc])\s*(\S+)$/.exec(line);
    args.push(...(file ? [`-${file[1]}`, file[2]!] : [line]));
  }
  return args;
}

async function toxIni(projectDir: string): Promise<[number, TestDependencies][]> {
  const text = await readProjectFileIfExists(projectDir, 'tox.ini');
  const args = text === undefined ? [] : toxDeps(text);
  return args.length ? [[0, { command: pip(args), source: 'tox.ini [testenv] deps' }]] : [];
}

export async function pythonTestDependencies(projectDir: string): Promise<TestDependencies[]> {
  const found = [...(await requirementsFiles(projectDir)), ...(await pyprojectGroups(projectDir)), ...(await toxIni(projectDir))];
  // A stable sort: test-named first, each kind in the order above.
  return found.sort((a, b) => a[0] - b[0]).map(([, d]) => d);
}
