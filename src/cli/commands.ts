import type { Command } from 'commander';
import type { SetExitCode } from './exit-codes.js';

type Register = (program: Command, setExitCode: SetExitCode) => void;

/**
 * Each command lives in its own file in src/cli/ and is listed here, one line each, in the order `--help` shows
 * them. A command's module, and all it loads, is imported only when that command runs: `envproof audit` does not
 * load the job queue, the report's charts or the view (about a second of start-up for every call otherwise).
 */
const COMMANDS: { names: string[]; load: () => Promise<Register[]> }[] = [
  { names: ['audit'], load: async () => [(await import('./audit.js')).registerAudit] },
  { names: ['doctor'], load: async () => [(await import('./doctor.js')).registerDoctor] },
  { names: ['env'], load: async () => [(await import('./env.js')).registerEnv] },
  {
    names: ['evaluate', 'evaluate-feature'],
    load: async () => {
      const m = await import('./evaluate.js');
      return [m.registerEvaluate, m.registerEvaluateFeature];
    },
  },
  { names: ['export'], load: async () => [(await import('./export.js')).registerExport] },
  { names: ['fix'], load: async () => [(await import('./fix.js')).registerFix] },
  { names: ['import'], load: async () => [(await import('./import.js')).registerImport] },
  { names: ['judge'], load: async () => [(await import('./judge.js')).registerJudge] },
  { names: ['queue'], load: async () => [(await import('./queue.js')).registerQueue] },
  { names: ['report'], load: async () => [(await import('./report.js')).registerReport] },
  { names: ['repro'], load: async () => [(await import('./repro.js')).registerRepro] },
  { names: ['run'], load: async () => [(await import('./run.js')).registerRun] },
  { names: ['tasks'], load: async () => [(await import('./tasks.js')).registerTasks] },
  { names: ['verify'], load: async () => [(await import('./verify.js')).registerVerify] },
  { names: ['view'], load: async () => [(await import('./view.js')).registerView] },
  { names: ['worker'], load: async () => [(await import('./worker.js')).registerWorker] },
];

/**
 * Registers the command named by `invoked` (the first word of the command line), none for `--version`, and every
 * command when it names none of them (`--help`, `help`, a typo that commander then answers with the list).
 */
export async function registerCommands(program: Command, setExitCode: SetExitCode, invoked: string | undefined): Promise<void> {
  if (invoked === '--version' || invoked === '-V') return;
  const named = COMMANDS.filter((c) => invoked !== undefined && c.names.includes(invoked));
  for (const command of named.length > 0 ? named : COMMANDS) for (const register of await command.load()) register(program, setExitCode);
}
