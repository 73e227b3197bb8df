/** Which user sandboxed programs run as. A leaf module: the ecosystems' cache publishers import it. */

/**
 * Programs run as this user (nobody) when envproof runs as root: the kernel does not apply the process limit
 * to root, and a program that escaped its namespaces would still not be root on the host.
 */
export const SANDBOX_UID = 65534;

/** The uid sandboxed programs run as: SANDBOX_UID when envproof is root, otherwise envproof's own (undefined). */
export function sandboxUid(): number | undefined {
  return process.getuid?.() === 0 ? SANDBOX_UID : undefined;
}
