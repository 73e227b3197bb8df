import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditContext } from '../../src/ecosystems/context.js';
import type { AuditContext } from '../../src/ecosystems/types.js';
import { HostSandbox } from '../../src/sandbox/host.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

const created: string[] = [];

export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A fresh work directory with a copy of the fixture as the project, and a host sandbox around it. */
export async function fixtureContext(fixture: string): Promise<AuditContext> {
  const work = await mkdtemp(path.join(tmpdir(), `envproof-go-${fixture}-`));
  created.push(work);
  const projectDir = path.join(work, 'project');
  const envDir = path.join(work, 'env');
  await cp(path.join(FIXTURES, fixture), projectDir, { recursive: true });
  await mkdir(envDir, { recursive: true });
  return auditContext(new HostSandbox('go', work), { timeoutMs: 600_000, progress: () => {} });
}

/** The go command's version on this machine (`go1.26.8`), or undefined when there is none. */
export function hostGoVersion(): string | undefined {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}
