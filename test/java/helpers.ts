import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditContext } from '../../src/ecosystems/types.js';
import { HostSandbox } from '../../src/sandbox/host.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface Workspace {
  ctx: AuditContext;
  /** The project copy (host path = inside path for the host sandbox). */
  projectDir: string;
  root: string;
  dispose(): Promise<void>;
}

/** A fresh host-sandbox workspace holding a copy of a fixture, or of files given inline. */
export async function workspace(source: { fixture: string } | { files: Record<string, string> }): Promise<Workspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'envproof-java-'));
  const projectDir = path.join(root, 'project');
  if ('fixture' in source) {
    await cp(path.join(FIXTURES, source.fixture), projectDir, { recursive: true });
  } else {
    for (const [rel, content] of Object.entries(source.files)) {
      await mkdir(path.dirname(path.join(projectDir, rel)), { recursive: true });
      await writeFile(path.join(projectDir, rel), content);
    }
  }
  const envDir = path.join(root, 'env');
  await mkdir(envDir, { recursive: true });
  const ctx: AuditContext = { sandbox: new HostSandbox('java', root), projectDir, envDir, timeoutMs: 600_000, progress: () => {} };
  return { ctx, projectDir, root, dispose: () => rm(root, { recursive: true, force: true }) };
}

/** name@version strings, sorted, for comparing with hand-derived expectations. */
export function pins(deps: readonly { name: string; version?: string }[]): string[] {
  return deps.map((d) => (d.version ? `${d.name}@${d.version}` : d.name)).sort();
}
