import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditContext } from '../../../src/ecosystems/types.js';
import { auditContext } from '../../../src/ecosystems/context.js';
import { HostSandbox } from '../../../src/sandbox/host.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

const created: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Removes every directory the helpers created. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A fresh work directory with a copy of the fixture as the project, and a host sandbox around it. */
export async function fixtureContext(fixture: string, replacements: Record<string, string> = {}): Promise<AuditContext> {
  const work = await tempDir(`envproof-cpp-${fixture}-`);
  const projectDir = path.join(work, 'project');
  const envDir = path.join(work, 'env');
  await cp(path.join(FIXTURES, fixture), projectDir, { recursive: true });
  await mkdir(envDir, { recursive: true });
  await substitute(path.join(projectDir, 'CMakeLists.txt'), replacements);
  return auditContext(new HostSandbox('cpp', work), { timeoutMs: 300_000, installTimeoutMs: 300_000, progress: () => {} });
}

async function substitute(file: string, replacements: Record<string, string>): Promise<void> {
  if (Object.keys(replacements).length === 0) return;
  let text = await readFile(file, 'utf8');
  for (const [key, value] of Object.entries(replacements)) text = text.replaceAll(`@${key}@`, value);
  await writeFile(file, text);
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=envproof-test', '-c', 'user.email=test@invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' });
}

/** Turns a fixture directory into a local git repository with one tagged commit; returns its file:// URL. */
export async function localGitRepo(fixture: string, tag: string, replacements: Record<string, string> = {}): Promise<string> {
  const dir = await tempDir(`envproof-cpp-repo-${fixture}-`);
  await cp(path.join(FIXTURES, fixture), dir, { recursive: true });
  await substitute(path.join(dir, 'CMakeLists.txt'), replacements);
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'fixture');
  git(dir, 'tag', tag);
  return `file://${dir}`;
}

/** Packs a fixture directory as `<dir>/<fileName>` (a .tar.gz with one top directory); returns its file:// URL. */
export async function localTarball(fixture: string, fileName: string): Promise<string> {
  const dir = await tempDir(`envproof-cpp-tarball-${fixture}-`);
  const top = fileName.replace(/\.tar\.gz$/, '');
  await cp(path.join(FIXTURES, fixture), path.join(dir, top), { recursive: true });
  execFileSync('tar', ['czf', fileName, top], { cwd: dir, stdio: 'pipe' });
  return `file://${path.join(dir, fileName)}`;
}

/** The upstream part of an installed Debian package's version (`1:1.2.13.dfsg-1` → `1.2.13`). */
export function debianUpstreamVersion(pkg: string): string {
  const v = execFileSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' });
  return v.replace(/^\d+:/, '').replace(/-[^-]*$/, '').replace(/[.+~]dfsg.*$/, '');
}
