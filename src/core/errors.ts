/**
 * Errors the CLI turns into a clear message and exit code 2. Anything else is a bug and is reported as one.
 * `hint` tells the user what to do about it.
 */
export class EnvproofError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly details?: string,
  ) {
    super(message);
    this.name = 'EnvproofError';
  }
}

export class UsageError extends EnvproofError {
  override name = 'UsageError';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A step of the environment (install, configure, build) failed; `failureClass` says what kind of failure. */
export class StepFailedError extends EnvproofError {
  override name = 'StepFailedError';
  constructor(
    readonly step: 'install' | 'build' | 'configure',
    readonly failureClass: string,
    message: string,
    /** The tail of the tool's own output. */
    readonly output: string,
    hint?: string,
  ) {
    super(message, hint, output);
  }
}

/** The project has no program envproof can find to run. */
export class NoEntryPointError extends EnvproofError {
  override name = 'NoEntryPointError';
}

/** The machinery failed (sandbox, tracer, registry unreachable), not the project: never the agent's failure. */
export class InfrastructureError extends EnvproofError {
  override name = 'InfrastructureError';
}
