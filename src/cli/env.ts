import path from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { toolsLabel } from '../ecosystems/promise.js';
import { doctorChecks } from '../sandbox/doctor.js';
import { printChecks } from './doctor.js';
import { prepareEnvironment } from '../sandbox/index.js';
import { ensureEnvironment, environmentDirs, environmentName, inspectEnvironment, readMarker, rootfsDir, rootfsRoot, treeSize } from '../sandbox/rootfs.js';
import type { SetExitCode } from './exit-codes.js';
import { addEnvironmentOptions, environmentChoice, type EnvironmentFlags } from './environment-options.js';

function languagesOf(arg: string): EcosystemId[] {
  if (arg === 'all') return [...ecosystemIds()];
  const lang = ecosystemIds().find((l) => l === arg);
  if (!lang) throw new UsageError(`unknown language "${arg}"`, `use one of: ${ecosystemIds().join(', ')}, all`);
  return [lang];
}

/** The promised tools' versions as the build recorded them, or why there are none. */
function toolsLine(tools: Record<string, string> | null): string {
  if (!tools) return 'not recorded (built before envproof recorded them; `envproof env build <language> --force` records them)';
  return toolsLabel(tools);
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;

export function registerEnv(program: Command, setExitCode: SetExitCode): void {
  const env = program.command('env').description('Build, list and check the clean environments of the sandboxes');

  const build = env
    .command('build <language>')
    .description(`Build (or with --force rebuild) the environment of a language (${ecosystemIds().join(', ')}, all): its root filesystem, and with --sandbox podman|docker its image`)
    .option('--force', 'rebuild the root filesystem even when a finished one exists')
    .addOption(new Option('--sandbox <backend>', 'also make the image of this container engine').choices(['bwrap', 'podman', 'docker']).default('bwrap'));
  addEnvironmentOptions(build).action(async (arg: string, o: EnvironmentFlags & { force?: boolean; sandbox: 'bwrap' | 'podman' | 'docker' }) => {
    const choice = environmentChoice(o);
    const progress = (m: string) => process.stderr.write(`${m}\n`);
    const extra = choice.systemPackages?.length ? ` with ${choice.systemPackages.join(', ')}` : '';
    if (o.sandbox === 'bwrap' && choice.imageBase === 'ubuntu') throw new UsageError('--image-base ubuntu needs --sandbox podman or docker');
    const buildOne = async (language: EcosystemId) => {
      if (o.sandbox === 'bwrap' || o.force) {
        const e = await ensureEnvironment(language, { force: o.force, systemPackages: choice.systemPackages, progress });
        process.stdout.write(`${language}${extra}: ready at ${e.dir} (built ${e.marker.builtAt})\n`);
      }
      if (o.sandbox !== 'bwrap') {
        await prepareEnvironment(o.sandbox, language, choice, progress);
        process.stdout.write(`${language}${extra}: ${o.sandbox} image ready (base ${choice.imageBase})\n`);
      }
    };
    // The languages are independent once the shared base system exists (its build is locked, so the first one
    // makes it and the others wait): they are built side by side, as most of a build waits on the mirror.
    const results = await Promise.allSettled(languagesOf(arg).map(buildOne));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const f of failed.slice(1)) process.stderr.write(`envproof: ${f.reason instanceof Error ? f.reason.message : String(f.reason)}\n`);
    if (failed.length > 0) throw failed[0]!.reason;
  });

  env
    .command('list')
    .description('Show each environment with its size, build date, packages and the versions of its promised tools (node, javac, g++, …)')
    .option('--json', 'print as JSON, with the complete package lists')
    .action(async (o: { json?: boolean }) => {
      // Each language's clean environment, then the derived ones (--system-packages) found on disk.
      const derived = environmentDirs().filter((name) => name.includes('+'));
      const wanted: { language: EcosystemId; systemPackages: string[] }[] = ecosystemIds().map((language) => ({ language, systemPackages: [] }));
      for (const name of derived) {
        const marker = (await readMarker(path.join(rootfsRoot(), name))) ?? undefined;
        if (marker?.systemPackages) wanted.push({ language: marker.language, systemPackages: marker.systemPackages });
      }
      const rows = [];
      for (const { language, systemPackages } of wanted) {
        const { status, marker } = await inspectEnvironment(language, systemPackages);
        const dir = rootfsDir(language, systemPackages);
        rows.push({
          language,
          name: environmentName(language, systemPackages),
          systemPackages,
          status,
          dir,
          sizeBytes: status === 'missing' ? 0 : await treeSize(dir),
          builtAt: marker?.builtAt ?? null,
          buildSeconds: marker?.buildSeconds ?? null,
          requested: marker?.requested ?? [],
          tools: marker?.tools ?? null,
          debian: marker?.debian ?? {},
          packages: marker?.packages ?? {},
        });
      }
      if (o.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const width = Math.max(11, ...rows.map((r) => r.name.length));
      for (const r of rows) {
        const managers = Object.entries(r.packages).map(([m, p]) => `${Object.keys(p).length} ${m}`);
        const counts = [`${Object.keys(r.debian).length} Debian packages`, ...managers].join(', ');
        const built = r.builtAt ? `built ${r.builtAt}` : '';
        process.stdout.write(`${r.name.padEnd(width)} ${r.status.padEnd(10)} ${mib(r.sizeBytes).padStart(9)}  ${built}  ${r.status === 'missing' ? '' : counts}\n`);
        if (r.requested.length > 0) process.stdout.write(`${''.padEnd(width)} recipe: ${r.requested.join(' ')}\n`);
        if (r.status !== 'missing') process.stdout.write(`${''.padEnd(width)} tools: ${toolsLine(r.tools)}\n`);
        if (r.systemPackages.length > 0) process.stdout.write(`${''.padEnd(width)} --system-packages ${r.systemPackages.join(',')}\n`);
      }
      if (rows.some((r) => r.status !== 'ready')) process.stdout.write('build the others with `envproof env build <language>` (with the same --system-packages for a derived one)\n');
    });

  env
    .command('doctor')
    .description('Check bubblewrap, namespaces, ptrace, debootstrap and disk space, and what the host, podman and docker backends can do here; say how to fix what is missing')
    .option('--json', 'print the checks as JSON')
    .addHelpText('after', '\nExit codes: 0 everything present, 1 something missing.')
    .action(async (o: { json?: boolean }) => {
      printChecks(await doctorChecks(), Boolean(o.json), setExitCode);
    });
}
