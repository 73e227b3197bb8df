/** Retrying what failed because of the machinery (a model API, the sandbox, the registry), never the agent's failures. */

/** Why a result is the machinery's failure: in a few words for the progress line, and how long the service asked to wait. */
export interface InfrastructureCause {
  cause: string;
  retryAfterSec?: number;
}

export interface RetryOptions {
  /** How often an infrastructure failure is retried. */
  retries: number;
  /** Seconds before the first retry; each further retry waits twice as long. */
  delaySec: number;
  progress(message: string): void;
  /** Aborted: no more retries, and a wait in progress ends at once. */
  signal?: AbortSignal;
}

/** A Retry-After longer than this is waited for this long only (a misbehaving proxy must not stall a run for hours). */
export const MAX_RETRY_AFTER_SEC = 900;

/** Seconds to wait before retry `retry` (1-based): the doubling delay, or longer when the service asked for longer. */
export function retryWaitSec(retry: number, delaySec: number, retryAfterSec?: number): number {
  const backoff = delaySec * 2 ** (retry - 1);
  return Math.max(backoff, Math.min(retryAfterSec ?? 0, MAX_RETRY_AFTER_SEC));
}

function sleep(sec: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, sec * 1000);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `attempt` again while `infrastructure` says its result is the machinery's failure, at most `retries` more
 * times, saying how long it waits and why (`retrying in 4 s (HTTP 429)`). Returns the last result.
 */
export async function retryingInfrastructure<T>(opts: RetryOptions, attempt: () => Promise<T>, infrastructure: (result: T) => InfrastructureCause | undefined): Promise<T> {
  let result = await attempt();
  for (let retry = 1; retry <= opts.retries && !opts.signal?.aborted; retry++) {
    const why = infrastructure(result);
    if (!why) break;
    const wait = retryWaitSec(retry, opts.delaySec, why.retryAfterSec);
    opts.progress(`retrying in ${wait} s (${why.cause})`);
    await sleep(wait, opts.signal);
    if (opts.signal?.aborted) break;
    result = await attempt();
  }
  return result;
}
