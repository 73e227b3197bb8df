/** Exit codes of every command: 0 clean, 1 findings (or a failed check), 2 error. */
export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_ERROR = 2;

/** How a command tells main which exit code to end with (it never calls process.exit itself). */
export type SetExitCode = (code: number) => void;
