/**
 * The settings `audit` and `fix` share: their options, and how the project's configuration file fills in what the
 * command line does not say (an option given on the command line always wins).
 */
import { type Command, Option } from 'commander';
import type { AuditOptions } from '../audit/audit.js';
import { FINDING_KINDS } from '../audit/report.js';
import { configuredRuns, findConfig, readConfigFile, type LoadedConfig } from '../config/config.js';
import { UsageError } from '../core/errors.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { DEFAULT_INSTALL_TIMEOUT_SEC } from '../ecosystems/step-limit.js';
import { BACKEND_CHOICES, type BackendChoice } from '../sandbox/index.js';
import type { TracerChoice } from '../trace/index.js';
import { addEnvironmentOptions, environmentChoice, type EnvironmentFlags } from './environment-options.js';
import { javaAttributionOption, tracedViewOf, type JavaAttribution } from './java-attribution.js';
import { tracerOption } from './tracer-option.js';

/** The kinds of findings, transitive hidden dependencies apart (`hidden` counts the direct ones), and failed runs. */
export const FAIL_ON_KINDS = [...FINDING_KINDS, 'hidden-transitive', 'run'] as const;
export const DEFAULT_FAIL_ON = ['phantom', 'hidden', 'missing', 'run'];

export interface SharedOptions extends EnvironmentFlags {
  ecosystem: string;
  run: string[];
  timeout: string;
  installTimeout: string;
  sandbox: BackendChoice;
  tracer: TracerChoice;
  javaAttribution: JavaAttribution;
  config?: string;
  quiet?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function addSharedOptions(command: Command): Command {
  command
    .addOption(new Option('--ecosystem <name>', "the project's ecosystem").choices(['auto', ...ecosystemIds()]).default('auto'))
    .option('--run <command>', 'shell command to trace instead of the detected entry point; repeat it to trace several (D3 is their union)', collect, [])
    .option('--timeout <seconds>', 'time limit of each traced command', '120')
    .option('--install-timeout <seconds>', 'time limit of each install and build step', String(DEFAULT_INSTALL_TIMEOUT_SEC))
    .addOption(new Option('--sandbox <backend>', 'where installs and the traced run happen').choices([...BACKEND_CHOICES]).default('auto'))
    .addOption(tracerOption())
    .addOption(javaAttributionOption());
  return addEnvironmentOptions(command)
    .option('--config <file>', 'the envproof configuration to use (default: envproof.config.json|yaml, [tool.envproof] in pyproject.toml, or "envproof" in package.json, in the project)')
    .option('-q, --quiet', 'no progress messages');
}

export const CONFIG_HELP = '\nConfiguration: options given on the command line override the project\'s configuration file (docs/config.md).';

function parseTimeout(value: string | number, where: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${where} must be a positive number of seconds, not "${value}"`);
  return n;
}

export function parseFailOn(value: string): string[] {
  const kinds = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of kinds) {
    if (!(FAIL_ON_KINDS as readonly string[]).includes(k)) throw new UsageError(`--fail-on: unknown kind "${k}"`, `use a comma-separated list of ${FAIL_ON_KINDS.join(', ')}`);
  }
  return kinds;
}

export interface Settings {
  audit: Omit<AuditOptions, 'progress' | 'keep'>;
  config?: LoadedConfig;
  /** The configuration's failOn, when it has one. */
  failOn?: string[];
  progress(message: string): void;
}

/** Merges command line, configuration file and defaults. `cmd` tells which options were given on the command line. */
export async function resolveSettings(dir: string, o: SharedOptions, cmd: Command): Promise<Settings> {
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  const progress = o.quiet ? () => {} : (m: string) => process.stderr.write(`envproof: ${m}\n`);
  const loaded = o.config ? await readConfigFile(o.config) : await findConfig(dir);
  const c = loaded?.config ?? {};
  if (loaded) progress(`configuration: ${loaded.origin}`);
  const javaAttribution = given('javaAttribution') ? o.javaAttribution : (c.javaAttribution ?? o.javaAttribution);
  const runs = o.run.length ? o.run : configuredRuns(c);
  return {
    audit: {
      dir,
      ecosystem: (given('ecosystem') ? o.ecosystem : (c.ecosystem ?? o.ecosystem)) as AuditOptions['ecosystem'],
      ...(runs ? { run: runs } : {}),
      timeoutSec: given('timeout') || c.timeout === undefined ? parseTimeout(o.timeout, '--timeout') : c.timeout,
      installTimeoutSec: parseTimeout(o.installTimeout, '--install-timeout'),
      sandbox: given('sandbox') ? o.sandbox : (c.sandbox ?? o.sandbox),
      environment: environmentChoice(o),
      // An audit may run on the host where bwrap cannot, saying so on stderr and in the report; `run` may not.
      allowHostFallback: true,
      tracer: o.tracer,
      tracedView: tracedViewOf(javaAttribution),
      ...(c.ignore ? { ignore: c.ignore } : {}),
    },
    ...(loaded ? { config: loaded } : {}),
    ...(c.failOn ? { failOn: c.failOn } : {}),
    progress,
  };
}
