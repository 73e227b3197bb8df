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
  dispose(): Promise<void>;
}

/** A fresh host-sandbox workspace holding a copy of a fixture, or of files given inline. */
export async function workspace(source: { fixture: string } | { files: Record<string, string> }): Promise<Workspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'envproof-js-'));
  const projectDir = path.join(root, 'project');
  if ('fixture' in source) {
    await cp(path.join(FIXTURES, source.fixture), projectDir, { recursive: true });
  } else {
    for (const [rel, content] of Object.entries(source.files)) {
      await mkdir(path.dirname(path.join(projectDir, rel)), { recursive: true });
      await writeFile(path.join(projectDir, rel), content);
    }
  }
  await mkdir(projectDir, { recursive: true });
  const sandbox = new HostSandbox('javascript', root);
  const ctx: AuditContext = {
    sandbox,
    projectDir,
    envDir: path.join(root, 'env'),
    timeoutMs: 300_000,
    progress: () => {},
  };
  return { ctx, projectDir, dispose: () => rm(root, { recursive: true, force: true }) };
}

/** name@version strings, sorted, for comparing dependency lists with hand-derived expectations. */
export function pins(deps: readonly { name: string; version?: string }[]): string[] {
  return deps.map((d) => (d.version ? `${d.name}@${d.version}` : d.name)).sort();
}
