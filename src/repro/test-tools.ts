/**
 * The project's test tools that its own install leaves out (pytest in requirements-test.txt): the commands that
 * install them in every run, after the project's install and with the network like it, and the error that names
 * a missing tool and the option when a run lacks one.
 */
import { EnvproofError, StepFailedError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { TestDependencies } from '../ecosystems/repro-facts.js';
import type { AuditContext, InstallResult } from '../ecosystems/types.js';
import type { ProjectKind } from './kinds.js';
import type { Outcome } from './types.js';

export interface TestToolPlan {
  /** What every run installs after the project's install, in order. */
  commands: string[];
  /** Where each of them came from: `--install`, or the file it was found in. */
  sources: string[];
  /** Every way the ecosystem found (the suggestions of a missing-tool error). */
  detected: TestDependencies[];
}

/**
 * The user's `--install` commands when given; else, unless `detect` is off, the first way the ecosystem finds
 * (test-named before dev-named: requirements-test.txt, the `test` extra, ...).
 */
export async function testToolPlan(kind: ProjectKind, projectDir: string, install: readonly string[], detect: boolean): Promise<TestToolPlan> {
  const detected = (await kind.testDependencies?.(projectDir)) ?? [];
  if (install.length) return { commands: [...install], sources: install.map(() => '--install'), detected };
  const first = detect ? detected[0] : undefined;
  return first ? { commands: [first.command], sources: [first.source], detected } : { commands: [], sources: [], detected };
}

/** The report's note on what was installed for the tests. */
export function testToolNote(plan: TestToolPlan): string | undefined {
  if (!plan.commands.length) return undefined;
  const each = plan.commands.map((c, i) => (plan.sources[i] === '--install' ? `\`${c}\`` : `\`${c}\` (found: ${plan.sources[i]}; --no-test-deps leaves it out)`));
  return `every run installed the test tools after the project's install: ${each.join(', ')}`;
}

/** Runs the plan's commands in the environment as the tests would run them, with the network; a failure is the install's. */
export async function installTestTools(kind: ProjectKind, commands: readonly string[], ctx: AuditContext, install: InstallResult): Promise<void> {
  for (const command of commands) {
    ctx.progress(`installing the test tools: ${command}`);
    const choice = kind.run(command, ctx, install);
    const r = await ctx.sandbox.exec({ argv: choice.argv, cwd: ctx.projectDir, env: choice.env ?? {}, timeoutMs: ctx.installTimeoutMs, network: true });
    if (r.timedOut || r.exitCode !== 0) {
      const output = tail(`${r.stdout}\n${r.stderr}`.trim());
      throw new StepFailedError('install', r.timedOut ? 'timeout' : 'other', `installing the test tools failed (${r.timedOut ? 'timed out' : `exit ${r.exitCode ?? r.signal}`}): ${command}`, output);
    }
  }
}

/** The tool a run lacked, from the shell's `pytest: not found` or the runtime's own message (the ecosystem's `missingTool`). */
export function missingTool(text: string, runtime?: RegExp): string | undefined {
  return /([^\s:'"()]+): (?:command )?not found/.exec(text)?.[1] ?? (runtime ? runtime.exec(text)?.[1] : undefined);
}

/** The error of a reference run that lacked its test tool, naming the tool and the option; undefined for another failure. */
export function missingToolError(outcome: Outcome, command: string | undefined, plan: TestToolPlan, runtime?: RegExp): EnvproofError | undefined {
  const testedNothing = outcome.status === 'not-started' || (outcome.status === 'fail' && Object.keys(outcome.tests ?? {}).length === 0);
  const tool = testedNothing ? missingTool(outcome.note ?? '', runtime) : undefined;
  if (!tool || command === undefined) return undefined;
  const others = plan.detected.filter((d) => !plan.commands.includes(d.command));
  const suggestion = others[0] ?? (plan.commands.length ? undefined : plan.detected[0]);
  const installed = plan.commands.length ? `the runs installed ${plan.commands.map((c) => `\`${c}\``).join(', ')}, which did not provide it; ` : '';
  const hint = suggestion
    ? `${installed}install it with --install "${suggestion.command}" (found: ${suggestion.source})`
    : `${installed}say how the tests' tools are installed: --install "<the command that installs ${tool}>" (repeatable)`;
  return new EnvproofError(`the test command needs ${tool}, which the fresh environment does not have: ${command}`, hint);
}
