/**
 * The npm project's own packages: the root package.json's name and its workspaces' names. npm links workspaces
 * into node_modules, so without this they would show up as dependencies in D2 and D3.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isValidPackageName } from './names.js';
import { objectField, readPackageJson, type PackageJson } from './package-json.js';

/** `workspaces` as an array of patterns, or Yarn's `{ packages: [...] }`. */
function workspacePatterns(pkg: PackageJson): string[] {
  const value = Array.isArray(pkg.workspaces) ? pkg.workspaces : objectField(pkg, 'workspaces')?.packages;
  return Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : [];
}

/** Directories a workspace pattern names: literal segments and `*` segments (npm's common forms); none outside the project. */
async function expand(projectDir: string, pattern: string): Promise<string[]> {
  let dirs = [projectDir];
  for (const segment of pattern.split('/').filter((s) => s && s !== '.')) {
    const next: string[] = [];
    for (const dir of dirs) {
      if (!segment.includes('*')) {
        next.push(path.join(dir, segment));
        continue;
      }
      const match = new RegExp(`^${segment.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      next.push(...entries.filter((e) => e.isDirectory() && e.name !== 'node_modules' && match.test(e.name)).map((e) => path.join(dir, e.name)));
    }
    dirs = next;
  }
  return dirs.filter((d) => d.startsWith(projectDir + path.sep));
}

export async function ownPackageNames(projectDir: string, pkg: PackageJson): Promise<string[]> {
  const names = new Set<string>();
  if (typeof pkg.name === 'string' && isValidPackageName(pkg.name)) names.add(pkg.name);
  for (const pattern of workspacePatterns(pkg)) {
    for (const dir of await expand(projectDir, pattern)) {
      const name = (await readPackageJson(path.join(dir, 'package.json'), projectDir).catch(() => ({}) as PackageJson)).name;
      if (typeof name === 'string' && isValidPackageName(name)) names.add(name);
    }
  }
  return [...names].sort();
}
