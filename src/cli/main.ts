#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { EnvproofError, errorMessage } from '../core/errors.js';
import { registerCommands } from './commands.js';
import { EXIT_CLEAN, EXIT_ERROR } from './exit-codes.js';


async function main(argv: string[]): Promise<number> {
  const program = new Command('envproof')
    .description('Audit the declared, installed and runtime-traced dependencies of a project; evaluate coding agents.')
    .version('0.1.0')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  let exitCode = EXIT_CLEAN;
  try {
    await registerCommands(
      program,
      (code) => {
        exitCode = code;
      },
      argv[2],
    );
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT_CLEAN : EXIT_ERROR;
    }
    if (err instanceof EnvproofError) {
      process.stderr.write(`envproof: ${err.message}\n`);
      if (err.details) process.stderr.write(`${err.details.trimEnd()}\n`);
      if (err.hint) process.stderr.write(`hint: ${err.hint}\n`);
      return EXIT_ERROR;
    }
    process.stderr.write(`envproof: internal error: ${errorMessage(err)}\n`);
    if (process.env.ENVPROOF_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.stderr.write('This is a bug in envproof; set ENVPROOF_DEBUG=1 for the stack trace and report it.\n');
    return EXIT_ERROR;
  }
}

// A reader that goes away (`envproof ... | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = EXIT_ERROR;
  },
);
