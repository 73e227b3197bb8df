import { EnvproofError } from '../core/errors.js';

/**
 * The agent cannot work as configured (its credentials were refused, its endpoint or model does not exist): the
 * user's to fix, not a failure of the agent. The protocol stops the whole run at the first one (exit 2) and records
 * nothing for the attempt.
 */
export class AgentMisconfigured extends EnvproofError {
  override name = 'AgentMisconfigured';
}

/** What a run that stopped here needs said: finished runs and attempts are kept. */
export const RESUME_HINT = 'finished runs are kept: run the same command again once it is fixed.';

/** An HTTP API refused the key (401/403): the server's own message, and where the key comes from. */
export function refusedKey(service: string, status: number, serverMessage: string, keyEnv: string | undefined): AgentMisconfigured {
  const where = keyEnv ? `check the key in ${keyEnv} (key-env= names another variable)` : 'this endpoint wants a key: name the variable holding it with key-env=<VAR>';
  return new AgentMisconfigured(`${service} refused the credentials (HTTP ${status}): ${serverMessage}`, `${where}; ${RESUME_HINT}`);
}

/**
 * What command-line agents print when they have no usable credentials ("No API key found", "Not logged in · Please
 * run /login", "Invalid API key", "401 Unauthorized"). Only an agent that exited with an error is checked, and only
 * the end of its output, so a project that merely mentions API keys is never taken for a refusal.
 */
const REFUSED = new RegExp(
  [
    String.raw`\b(no|missing|invalid|incorrect) api[ _-]?key\b`,
    String.raw`\bapi[ _-]?key (is )?(not (set|found|provided|configured)|missing|invalid|required)\b`,
    String.raw`\binvalid x-api-key\b`,
    String.raw`\bnot logged in\b`,
    String.raw`\blog ?in required\b`,
    String.raw`\bnot authenticated\b`,
    String.raw`\bauthentication (failed|required)\b`,
    String.raw`\b401 unauthorized\b`,
  ].join('|'),
  'i',
);

const LINES_CHECKED = 20;

/** The line of a failed agent command's output that says its credentials were refused, if any. */
export function refusedCredentialLine(stdout: string, stderr: string): string | undefined {
  const lines = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.slice(-LINES_CHECKED).find((l) => REFUSED.test(l));
}

/** The refusal of a command-line agent (`cmd:`), with the line it printed. */
export function refusedLogin(agent: string, line: string): AgentMisconfigured {
  return new AgentMisconfigured(`the agent ${agent} has no usable credentials: ${line}`, `log the agent in (or export its API key) in the environment envproof runs in; ${RESUME_HINT}`);
}
