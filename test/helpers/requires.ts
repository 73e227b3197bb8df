/**
 * Tests that need a tool, a permission or data the machine may lack. Outside CI such a test is skipped, and the
 * skip names what is missing. In CI (`CI=true`) `scripts/setup.sh` installs everything, so a missing tool is a
 * failure there, never a silent skip.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
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

/**
 * For tests that read the shared data beside the checkout (`../shared`, see docs/paper-data.md): each path given
 * (relative to the shared folder) must exist; the skip (or CI failure) names the ones that do not.
 */
export function requiresShared(shared: string, ...paths: string[]): { skip?: string } {
  const absent = paths.map((p) => path.join(shared, p)).filter((p) => !existsSync(p));
  return requires('the shared data beside the checkout', absent.length === 0, absent.length ? `no ${absent.join(', ')}` : undefined);
}
