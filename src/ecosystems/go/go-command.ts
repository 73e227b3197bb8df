/** Running the go command in the sandbox, and its failures as StepFailedError with the class of what went wrong. */
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { ExecResult } from '../../sandbox/types.js';
import { downloadFailureClass, timeoutFailureClass } from '../registry.js';
import type { AuditContext } from '../types.js';
import { classifyGoFailure, goErrorSummary, goFailingEndpoints, notFoundModule, proxyListsVersions, toolchainTooOld } from './failure.js';
import { goEnv, GO_PROXY } from './go-env.js';
import { GO_TOOLCHAIN } from './toolchain.js';
import { installTimeoutHint, installTimeoutText } from '../step-limit.js';

export function goExec(ctx: AuditContext, args: string[], network: boolean): Promise<ExecResult> {
  return ctx.sandbox.exec({ argv: ['go', ...args], cwd: ctx.projectDir, env: goEnv(ctx.envDir), timeoutMs: ctx.installTimeoutMs, network });
}

/** The error of a go command that failed in `step`; `failureClass` for compiler errors (the build's own). */
export async function goFailure(step: 'install' | 'build', args: readonly string[], r: ExecResult, timeoutMs: number): Promise<StepFailedError> {
  const command = `go ${args.join(' ')}`;
  const output = `${r.stdout}\n${r.stderr}`;
  const outputTail = tail(output, 60);
  if (r.spawnError) return new StepFailedError(step, 'other', `go could not be started: ${r.spawnError}`, outputTail, 'is a Go toolchain on the PATH of the sandbox? (`envproof env doctor`)');
  if (r.timedOut) return new StepFailedError(step, await timeoutFailureClass(GO_PROXY), `${command} ${installTimeoutText(timeoutMs)}`, outputTail, installTimeoutHint(timeoutMs));
  const old = toolchainTooOld(output);
  if (old) {
    return new StepFailedError(
      step,
      'build-configuration',
      `${old.what} requires go >= ${old.needs}, and the environment's toolchain is go ${old.running} (GOTOOLCHAIN=local: envproof does not download another)`,
      outputTail,
      `lower the go line of go.mod to ${GO_TOOLCHAIN.language} or older, or choose module versions that support go ${old.running}`,
    );
  }
  let failureClass: string = classifyGoFailure(output);
  const missing = notFoundModule(output);
  if (failureClass === 'no-such-package' && missing && (await proxyListsVersions(missing.module))) failureClass = 'no-matching-version';
  if (failureClass === 'network') failureClass = await downloadFailureClass(GO_PROXY, goFailingEndpoints(output));
  // What is left of a build is the compiler's verdict on the code (protocol/classify.ts reads the messages).
  if (failureClass === 'other' && step === 'build') failureClass = 'build';
  const summary = goErrorSummary(output);
  const what = missing && failureClass === 'no-such-package' ? `${command} failed: the module proxy has no module ${missing.module}` : `${command} failed (exit code ${r.exitCode ?? r.signal})`;
  return new StepFailedError(step, failureClass, summary ? `${what}: ${summary}` : what, outputTail);
}
