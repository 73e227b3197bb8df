/**
 * The limit of install and build steps (`--install-timeout`), apart from the traced run's (`--timeout`): a cold
 * install resolves and downloads for minutes where a traced run takes seconds.
 */
export const DEFAULT_INSTALL_TIMEOUT_SEC = 1800;

/** "did not finish within N s (--install-timeout)": which limit ran out, so the user knows which to raise. */
export function installTimeoutText(timeoutMs: number): string {
  return `did not finish within ${Math.round(timeoutMs / 1000)} s (--install-timeout)`;
}

export function installTimeoutHint(timeoutMs: number): string {
  return `install and build steps may take ${Math.round(timeoutMs / 1000)} s: raise --install-timeout (in seconds) if the step needs longer`;
}
