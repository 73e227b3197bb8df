/**
 * Tests that need a tool, a permission or data the machine may lack. Outside CI such a test is skipped, and the
 * skip names what is missing. In CI (`CI=true`) `scripts/setup.sh` installs everything, so a missing tool is a
 * failure there, never a silent skip.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function missing(what: string, detail?: string): string {
  return `${what} is missing${detail ? ` (${detail})` : ''}`;
}

function ciFailure(what: string, detail?: string): string {
  return `CI=true and ${missing(what, detail)}: scripts/setup.sh must provide it, and tests may not skip in CI`;
}

/**
 * Options for `describe`/`it`: nothing when `present`; otherwise `{ skip: 'needs …' }` outside CI, and in CI an
 * error that fails the test file at once.
 */
export function requires(what: string, present: boolean, detail?: string): { skip?: string } {
  if (present) return {};
  if (IN_CI) throw new Error(ciFailure(what, detail));
  return { skip: `needs ${missing(what, detail)}` };
}

/** Inside a running test: skips it (outside CI) or fails it (in CI) because `what` is missing. */
export function skipMissing(t: TestContext, what: string, detail?: string): void {
  if (IN_CI) assert.fail(ciFailure(what, detail));
  t.skip(`needs ${missing(what, detail)}`);
}
