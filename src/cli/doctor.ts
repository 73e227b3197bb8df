import type { Command } from 'commander';
import { runDoctor, type Check } from '../doctor/checks.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';

export function registerDoctor(program: Command, setExitCode: SetExitCode): void {
  program
    .command('doctor')
    .description('Check the tools envproof needs (tracer, toolchains) and say how to install what is missing')
    .option('--json', 'print the checks as JSON')
    .addHelpText('after', '\nExit codes: 0 everything present, 1 something missing.')
    .action(async (o: { json?: boolean }) => {
      printChecks(await runDoctor(), Boolean(o.json), setExitCode);
    });
}

/** Prints checks (or their JSON); exit code 1 when any that is not optional failed. Shared with `envproof env doctor`. */
export function printChecks(checks: Check[], json: boolean, setExitCode: SetExitCode): void {
  if (json) process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  else {
    const width = Math.max(...checks.map((c) => c.name.length));
    for (const c of checks) {
      process.stdout.write(`${c.ok ? 'ok     ' : c.optional ? 'n/a    ' : 'MISSING'}  ${c.name.padEnd(width)}  ${c.detail}\n`);
      if (!c.ok && c.fix) process.stdout.write(`         fix: ${c.fix}\n`);
    }
  }
  setExitCode(checks.every((c) => c.ok || c.optional) ? EXIT_CLEAN : EXIT_FINDINGS);
}
