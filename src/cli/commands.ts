import type { Command } from 'commander';
import type { SetExitCode } from './exit-codes.js';
import { registerAudit } from './audit.js';
import { registerDoctor } from './doctor.js';
import { registerEnv } from './env.js';
import { registerEvaluate, registerEvaluateFeature } from './evaluate.js';
import { registerExport } from './export.js';
import { registerFix } from './fix.js';
import { registerImport } from './import.js';
import { registerJudge } from './judge.js';
import { registerQueue } from './queue.js';
import { registerReport } from './report.js';
import { registerRepro } from './repro.js';
import { registerRun } from './run.js';
import { registerTasks } from './tasks.js';
import { registerVerify } from './verify.js';
import { registerView } from './view.js';
import { registerWorker } from './worker.js';

/** Each command lives in its own file in src/cli/ and registers itself here, one line each. */
export function registerCommands(program: Command, setExitCode: SetExitCode): void {
  registerAudit(program, setExitCode);
  registerDoctor(program, setExitCode);
  registerEnv(program, setExitCode);
  registerEvaluate(program, setExitCode);
  registerEvaluateFeature(program, setExitCode);
  registerExport(program, setExitCode);
  registerFix(program, setExitCode);
  registerImport(program, setExitCode);
  registerJudge(program, setExitCode);
  registerQueue(program, setExitCode);
  registerReport(program, setExitCode);
  registerRepro(program, setExitCode);
  registerRun(program, setExitCode);
  registerTasks(program, setExitCode);
  registerVerify(program, setExitCode);
  registerView(program, setExitCode);
  registerWorker(program, setExitCode);
}
