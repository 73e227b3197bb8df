/** The module requirement graph as `go mod graph` prints it: `from to` per line, the main module without a version. */
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { AuditContext } from '../types.js';
import { goExec } from './go-command.js';

export interface ModuleGraph {
  /** `path@version` (or the main module's path) → the `path@version`s it requires. */
  edges: Map<string, string[]>;
  /** Every `path@version` in the graph. */
  nodes: Set<string>;
}

export function parseModuleGraph(text: string): ModuleGraph {
  const edges = new Map<string, string[]>();
  const nodes = new Set<string>();
  for (const line of text.split('\n')) {
    const [from, to] = line.trim().split(/\s+/);
    if (!from || !to) continue;
    edges.set(from, [...(edges.get(from) ?? []), to]);
    for (const n of [from, to]) if (n.includes('@')) nodes.add(n);
  }
  return { edges, nodes };
}

export async function moduleGraph(ctx: AuditContext): Promise<ModuleGraph> {
  const args = ['mod', 'graph'];
  const r = await goExec(ctx, args, true);
  if (r.exitCode !== 0 || r.timedOut) throw new StepFailedError('install', 'other', `go ${args.join(' ')} failed`, tail(`${r.stdout}\n${r.stderr}`));
  return parseModuleGraph(r.stdout);
}
