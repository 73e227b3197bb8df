import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditContext } from '../../../src/ecosystems/types.js';
import { hostWorkspace, type Workspace } from '../../helpers/workspace.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

const workspaces: Workspace[] = [];

export async function removeTempDirs(): Promise<void> {
  await Promise.all(workspaces.splice(0).map((w) => w.dispose()));
}

/** A fresh work directory with a copy of the fixture as the project, and a host sandbox around it. */
export async function fixtureContext(fixture: string): Promise<AuditContext> {
  const ws = await hostWorkspace('go', FIXTURES, { fixture }, 600_000);
  workspaces.push(ws);
  return ws.ctx;
}

/** The go command's version on this machine (`go1.26.8`), or undefined when there is none. */
export function hostGoVersion(): string | undefined {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}
