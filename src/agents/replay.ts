import { cp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { sanitizeWorkspace } from './project-files.js';
import type { Agent, AgentTurnRequest, AgentTurnResult } from './types.js';

/**
 * Replays recorded attempts laid out as `<dir>/<task-id>/<language>/<n>/` (n = 0, 1, …, each a complete
 * project tree): round i gives attempt i; when they run out the agent gives up. With `<dir>/<task>/<language>/
 * trial-<t>/<n>/` present, trial t uses its own recordings.
 */
export class ReplayAgent implements Agent {
  constructor(
    readonly name: string,
    private readonly dir: string,
  ) {}

  private async attemptDir(req: AgentTurnRequest): Promise<string | undefined> {
    const base = path.join(this.dir, req.taskId, req.language);
    const perTrial = path.join(base, `trial-${req.trial}`, String(req.round));
    for (const candidate of [perTrial, path.join(base, String(req.round))]) {
      if ((await stat(candidate).catch(() => undefined))?.isDirectory()) return candidate;
    }
    return undefined;
  }

  async turn(req: AgentTurnRequest): Promise<AgentTurnResult> {
    const source = await this.attemptDir(req);
    if (!source) return { status: 'gave-up', reason: `no recorded attempt ${req.round} for ${req.taskId}/${req.language}` };
    for (const entry of await readdir(req.workspace)) await rm(path.join(req.workspace, entry), { recursive: true, force: true });
    await cp(source, req.workspace, { recursive: true, verbatimSymlinks: true });
    const refused = await sanitizeWorkspace(req.workspace);
    return { status: 'ok', ...(refused.length ? { note: refused.map((f) => `refused ${f.path} (${f.reason})`).join('; ') } : {}) };
  }
}
