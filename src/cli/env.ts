import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { ECOSYSTEM_IDS, type EcosystemId } from '../core/types.js';
import { doctorChecks } from '../sandbox/doctor.js';
import { printChecks } from './doctor.js';
import { ensureEnvironment, inspectEnvironment, rootfsDir, treeSize } from '../sandbox/rootfs.js';
import type { SetExitCode } from './commands.js';
import { addEnvironmentOptions, environmentChoice, type EnvironmentFlags } from './environment-options.js';

function languagesOf(arg: string): EcosystemId[] {
  if (arg === 'all') return [...ECOSYSTEM_IDS];
  const lang = ECOSYSTEM_IDS.find((l) => l === arg);
  if (!lang) throw new UsageError(`unknown language "${arg}"`, `use one of: ${ECOSYSTEM_IDS.join(', ')}, all`);
  return [lang];
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;

export function registerEnv(program: Command, setExitCode: SetExitCode): void {
  const env = program.command('env').description('Build, list and check the clean environments of the bwrap sandbox');

  const build = env
    .command('build <language>')
    .description(`Build (or with --force rebuild) the root filesystem of a language (${ECOSYSTEM_IDS.join(', ')}, all)`)
    .option('--force', 'rebuild even when a finished environment exists');
  addEnvironmentOptions(build).action(async (arg: string, o: EnvironmentFlags & { force?: boolean }) => {
    const { systemPackages } = environmentChoice(o);
    for (const language of languagesOf(arg)) {
      const e = await ensureEnvironment(language, { force: o.force, systemPackages, progress: (m) => process.stderr.write(`${m}\n`) });
      const extra = systemPackages?.length ? ` with ${systemPackages.join(', ')}` : '';
      process.stdout.write(`${language}${extra}: ready at ${e.dir} (built ${e.marker.builtAt})\n`);
    }
  });

  env
    .command('list')
    .description('Show each environment with its size, build date and packages')
    .option('--json', 'print as JSON, with the complete package lists')
    .action(async (o: { json?: boolean }) => {
      const rows = [];
      for (const language of ECOSYSTEM_IDS) {
        const { status, marker } = await inspectEnvironment(language);
        const dir = rootfsDir(language);
        rows.push({
          language,
          status,
          dir,
          sizeBytes: status === 'missing' ? 0 : await treeSize(dir),
          builtAt: marker?.builtAt ?? null,
          buildSeconds: marker?.buildSeconds ?? null,
          requested: marker?.requested ?? [],
          debian: marker?.debian ?? {},
          packages: marker?.packages ?? {},
        });
      }
      if (o.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      for (const r of rows) {
        const managers = Object.entries(r.packages).map(([m, p]) => `${Object.keys(p).length} ${m}`);
        const counts = [`${Object.keys(r.debian).length} Debian packages`, ...managers].join(', ');
        const built = r.builtAt ? `built ${r.builtAt}` : '';
        process.stdout.write(`${r.language.padEnd(11)} ${r.status.padEnd(10)} ${mib(r.sizeBytes).padStart(9)}  ${built}  ${r.status === 'missing' ? '' : counts}\n`);
        if (r.requested.length > 0) process.stdout.write(`${''.padEnd(11)} toolchain: ${r.requested.join(' ')}\n`);
      }
      if (rows.some((r) => r.status !== 'ready')) process.stdout.write('build the others with `envproof env build <language>`\n');
    });

  env
    .command('doctor')
    .description('Check bubblewrap, namespaces, ptrace, debootstrap and disk space; say how to fix what is missing')
    .option('--json', 'print the checks as JSON')
    .addHelpText('after', '\nExit codes: 0 everything present, 1 something missing.')
    .action(async (o: { json?: boolean }) => {
      printChecks(await doctorChecks(), Boolean(o.json), setExitCode);
    });
}
