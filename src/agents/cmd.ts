import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runProcess } from '../core/process.js';
import { refusedCredentialLine, refusedLogin } from './misconfigured.js';
import { sanitizeWorkspace } from './project-files.js';
import type { Agent, AgentTurnRequest, AgentTurnResult, Usage } from './types.js';
import { shellQuote } from '../core/shell.js';

/**
 * A command-line coding agent run in the workspace. Placeholders in the templates: {prompt_file} (a file
 * holding the prompt), {workspace}, {round}, {task}, {language}; each is substituted shell-quoted.
 * `next` (when given) is used from round 1 on, to continue the agent's own conversation.
 */
export interface CmdPreset {
  first: string;
  next?: string;
  /** Reads token usage and cost from what the agent printed, when it reports them. */
  usage?: (stdout: string) => Usage | undefined;
}

/** Claude Code prints one JSON object with `usage` and `total_cost_usd` under --output-format json. */
function claudeUsage(stdout: string): Usage | undefined {
  try {
    const j = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { usage?: { input_tokens?: number; output_tokens?: number }; total_cost_usd?: number };
    return { inputTokens: j.usage?.input_tokens, outputTokens: j.usage?.output_tokens, costUsd: j.total_cost_usd };
  } catch {
    return undefined;
  }
}

export const CMD_PRESETS: Record<string, CmdPreset> = {
  claude: {
    first: 'claude -p "$(cat {prompt_file})" --output-format json --permission-mode acceptEdits',
    next: 'claude -p "$(cat {prompt_file})" --continue --output-format json --permission-mode acceptEdits',
    usage: claudeUsage,
  },
  codex: {
    first: 'codex exec --sandbox workspace-write --skip-git-repo-check "$(cat {prompt_file})"',
    next: 'codex exec resume --last "$(cat {prompt_file})"',
  },
  // Gemini CLI starts a new conversation each round; the repair prompt carries the error and the code is in the workspace.
  gemini: { first: 'gemini -p "$(cat {prompt_file})" --yolo' },
  aider: {
    first: 'aider --yes-always --no-auto-commits --no-gitignore --message-file {prompt_file}',
    next: 'aider --yes-always --no-auto-commits --no-gitignore --restore-chat-history --message-file {prompt_file}',
  },
};

export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(prompt_file|workspace|round|task|language)\}/g, (_, key: string) => shellQuote(values[key] ?? ''));
}

export class CmdAgent implements Agent {
  constructor(
    readonly name: string,
    private readonly preset: CmdPreset,
    /** The agent's own environment: it needs its credentials; the code under test never sees them. */
    private readonly env: Record<string, string> = process.env as Record<string, string>,
  ) {}

  async turn(req: AgentTurnRequest): Promise<AgentTurnResult> {
    // The prompt file lives beside the workspace, not in it, so it never becomes part of the project.
    const promptFile = path.join(path.dirname(req.workspace), `prompt-round-${req.round}.md`);
    await writeFile(promptFile, req.prompt);
    const template = req.round > 0 && this.preset.next ? this.preset.next : this.preset.first;
    const command = fillTemplate(template, {
      prompt_file: promptFile,
      workspace: req.workspace,
      round: String(req.round),
      task: req.taskId,
      language: req.language,
    });
    const r = await runProcess(['/bin/sh', '-c', command], { cwd: req.workspace, env: this.env, timeoutMs: req.timeoutMs, ...(req.signal ? { signal: req.signal } : {}) });
    const refused = await sanitizeWorkspace(req.workspace);
    const usage = this.preset.usage?.(r.stdout);
    const transcript = { output: r.stdout, stderr: r.stderr };
    if (r.spawnError) return { status: 'failed', reason: `the agent command could not start: ${r.spawnError}` };
    if (r.timedOut) return { status: 'failed', reason: `the agent did not finish within ${Math.round(req.timeoutMs / 1000)} s and was stopped`, usage, transcript };
    if (r.exitCode === 127) return { status: 'failed', reason: `the agent command was not found: ${r.stderr.trim().split('\n').at(-1) ?? command}`, transcript };
    if (r.exitCode !== 0) {
      const refusal = req.signal?.aborted ? undefined : refusedCredentialLine(r.stdout, r.stderr);
      if (refusal) throw refusedLogin(this.name, refusal);
      return { status: 'failed', reason: `the agent exited with ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`, usage, transcript };
    }
    return { status: 'ok', usage, transcript, ...(refused.length ? { note: refused.map((f) => `refused ${f.path} (${f.reason})`).join('; ') } : {}) };
  }
}
