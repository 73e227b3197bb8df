import type { Command } from 'commander';

/** Sets the process exit code of the command that ran. */
export type SetExitCode = (code: number) => void;

/** Each command lives in its own file in src/cli/ and registers itself here. */
export function registerCommands(program: Command, setExitCode: SetExitCode): void {
  void program;
  void setExitCode;
}
