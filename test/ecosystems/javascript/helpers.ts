import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostWorkspace, type Workspace, type WorkspaceSource } from '../../helpers/workspace.js';

export { pins, type Workspace } from '../../helpers/workspace.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A fresh host-sandbox workspace holding a copy of a JavaScript fixture, or of files given inline. */
export function workspace(source: WorkspaceSource): Promise<Workspace> {
  return hostWorkspace('javascript', FIXTURES, source);
}
