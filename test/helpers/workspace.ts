import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EcosystemId } from '../../src/core/types.js';
import type { AuditContext } from '../../src/ecosystems/types.js';
import { auditContext } from '../../src/ecosystems/context.js';
import { HostSandbox } from '../../src/sandbox/host.js';

export interface Workspace {
  ctx: AuditContext;
  /** The project copy (host path = inside path for the host sandbox). */
  projectDir: string;
  root: string;
  dispose(): Promise<void>;
}

export type WorkspaceSource = { fixture: string } | { files: Record<string, string> };

/** A fresh host-sandbox workspace holding a copy of a fixture (from `fixtures`), or of files given inline. */
export async function hostWorkspace(language: EcosystemId, fixtures: string, source: WorkspaceSource, timeoutMs = 300_000): Promise<Workspace> {
  const root = await mkdtemp(path.join(tmpdir(), `envproof-${language}-`));
  const projectDir = path.join(root, 'project');
  if ('fixture' in source) {
    await cp(path.join(fixtures, source.fixture), projectDir, { recursive: true });
  } else {
    for (const [rel, content] of Object.entries(source.files)) {
      await mkdir(path.dirname(path.join(projectDir, rel)), { recursive: true });
      await writeFile(path.join(projectDir, rel), content);
    }
  }
  await mkdir(projectDir, { recursive: true });
  const envDir = path.join(root, 'env');
  await mkdir(envDir, { recursive: true });
  const ctx: AuditContext = auditContext(new HostSandbox(language, root), { timeoutMs, installTimeoutMs: timeoutMs, progress: () => {} });
  return { ctx, projectDir, root, dispose: () => rm(root, { recursive: true, force: true }) };
}

/** name@version strings, sorted, for comparing dependency lists with hand-derived expectations. */
export function pins(deps: readonly { name: string; version?: string }[]): string[] {
  return deps.map((d) => (d.version ? `${d.name}@${d.version}` : d.name)).sort();
}
