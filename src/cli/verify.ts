import { Option, type Command } from 'commander';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';
import { DATABASES, ORMS, type Constraints, type Verdict, type VerifyReport } from '../verify/types.js';

function renderText(report: VerifyReport): string {
  const lines = [`envproof verify: ${report.project}`];
  for (const v of report.verifiers) {
    const verdicts: { label: string; verdict: Verdict }[] = [{ label: v.name, verdict: v }];
    if (v.strict) verdicts.push({ label: `${v.name} (strict)`, verdict: v.strict });
    for (const { label, verdict } of verdicts) {
      lines.push(`${verdict.passed ? 'holds   ' : 'VIOLATED'}  ${label}  [${verdict.rules}]`);
      for (const e of verdict.evidence) lines.push(`    ${e.file}${e.line ? `:${e.line}` : ''}  ${e.message}`);
    }
  }
  for (const u of report.unparsed) lines.push(`note: ${u.file} could not be parsed fully (${u.reason})`);
  return `${lines.join('\n')}\n`;
}

export function registerVerify(program: Command, setExitCode: SetExitCode): void {
  program
    .command('verify')
    .description('Check a generated backend against structural constraints: Clean Architecture layers, the database engine, the ORM')
    .argument('<dir>', 'the project directory')
    .addOption(new Option('--architecture <pattern>', 'layered architecture to check').choices(['clean']))
    .addOption(new Option('--database <engine>', 'the database engine the project must use, and no other').choices([...DATABASES]))
    .addOption(new Option('--orm <orm>', 'the ORM the project must use').choices([...ORMS]))
    .option('--strict', 'judge the ORM by the strict rule (queries through the ORM, no raw SQL) for the exit code')
    .option('--json', 'print the verdicts as JSON (docs/verify.md)')
    .addHelpText('after', '\nExit codes: 0 every verifier holds, 1 a violation, 2 error.')
    .action(async (dir: string, o: Constraints & { strict?: boolean; json?: boolean }) => {
      const { verifyProject, allHold } = await import('../verify/verify.js');
      const report = await verifyProject(dir, { architecture: o.architecture, database: o.database, orm: o.orm });
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : renderText(report));
      setExitCode(allHold(report, o.strict) ? EXIT_CLEAN : EXIT_FINDINGS);
    });
}
