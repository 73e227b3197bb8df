import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { EnvproofError } from '../core/errors.js';
import { unsafeRelativePath, writeProjectFiles } from './project-files.js';
import type { Agent, AgentTurnRequest, AgentTurnResult, Usage } from './types.js';

/** One round of a scripted agent. */
export interface ScriptStep {
  /** Files to write (relative path → content). */
  files?: Record<string, string>;
  /** Files to remove. */
  delete?: string[];
  /** Wait this long first (to test agent time limits). */
  sleepSeconds?: number;
  usage?: Usage;
}

/** Steps per `<task>/<language>`, with `default` for everything else. */
export type Script = Record<string, ScriptStep[]>;

/** A deterministic agent for tests and demonstrations: round i performs step i; past the last step it gives up. */
export class ScriptedAgent implements Agent {
  constructor(
    readonly name: string,
    private readonly script: Script,
  ) {}

  async turn(req: AgentTurnRequest): Promise<AgentTurnResult> {
    const steps = this.script[`${req.taskId}/${req.language}`] ?? this.script.default ?? [];
    const step = steps[req.round];
    if (!step) return { status: 'gave-up', reason: `the script has no round ${req.round} for ${req.taskId}/${req.language}` };
    if (step.sleepSeconds) await new Promise((r) => setTimeout(r, step.sleepSeconds! * 1000));
    for (const rel of step.delete ?? []) {
      if (!unsafeRelativePath(rel)) await rm(path.join(req.workspace, rel), { force: true, recursive: true });
    }
    const files = Object.entries(step.files ?? {}).map(([p, content]) => ({ path: p, content }));
    const refused = await writeProjectFiles(req.workspace, files);
    return {
      status: 'ok',
      ...(step.usage ? { usage: step.usage } : {}),
      ...(refused.length ? { note: refused.map((f) => `refused ${f.path} (${f.reason})`).join('; ') } : {}),
    };
  }
}

/** Reads a script file (YAML or JSON): `{ default: [steps], "<task>/<language>": [steps] }`. */
export function loadScript(file: string): Script {
  let doc: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    doc = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new EnvproofError(`cannot read the agent script ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new EnvproofError(`agent script ${file}: expected a mapping of "<task>/<language>" or "default" to a list of steps`);
  }
  for (const [key, steps] of Object.entries(doc)) {
    if (!Array.isArray(steps)) throw new EnvproofError(`agent script ${file}: "${key}" must be a list of steps`);
  }
  return doc as Script;
}
