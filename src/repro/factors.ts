import type { EnvironmentFacts, OrderOptions, RunnerOrder } from '../ecosystems/repro-facts.js';
import type { CauseCategory, FactorId, FactorSetting, ReferenceEnvironment } from './types.js';

/** Which category of the seed's taxonomy each factor's failures fall in. */
export const FACTOR_CATEGORY: Readonly<Record<FactorId, CauseCategory>> = {
  timezone: 'implicit-environment',
  locale: 'implicit-environment',
  path: 'implicit-environment',
  home: 'implicit-environment',
  umask: 'implicit-environment',
  cpus: 'implicit-environment',
  clock: 'time-date',
  'test-order': 'test-order',
  network: 'network',
  'dependency-drift': 'dependency-drift',
  'hash-seed': 'other',
};

/** The factors the shim pins; the others (home, umask, cpus) keep whatever the run varied. */
export const SHIM_FACTORS: readonly FactorId[] = ['timezone', 'locale', 'clock', 'path', 'test-order', 'hash-seed', 'network', 'dependency-drift'];

/** The default environment's (the sandbox's): what the shim pins when the reference does not say otherwise. */
export const DEFAULT_TIMEZONE = 'UTC';
export const DEFAULT_LOCALE = 'C.UTF-8';

const TIMEZONES = ['Pacific/Kiritimati', 'America/Adak', 'Asia/Kathmandu'];
const LOCALES = ['de_DE.UTF-8', 'tr_TR.UTF-8', 'fr_FR.UTF-8'];
const UMASKS = ['077', '027', '007'];

export const FAKETIME_LIBRARY = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** What one run looks like once its factors are applied; the fresh run turns it into a command line. */
export interface RunShape {
  /** Added to the test command's environment. */
  env: Record<string, string>;
  /** Put in front of the test command: `env` for libfaketime, taskset, the umask shell. */
  prefix: string[];
  runnerArgs: string[];
  /** pytest takes options from PYTEST_ADDOPTS; joined with the report option. */
  pytestOptions: string[];
  network: boolean;
  /** Resolve dependencies against the registry as of this date (ISO); absent: the live registry. */
  indexDate?: string;
  /** Put one more directory first on PATH (wrappers of every tool the PATH already finds). */
  extraPathEntry: boolean;
  /** HOME elsewhere: this directory name under the work directory. */
  homeName?: string;
  /** A locale the run varies to, compiled where the program runs (the environments have only C.UTF-8). */
  locale?: string;
  /** Show the program this many CPUs (besides the affinity taskset sets), where the sandbox can. */
  visibleCpus?: number;
  /** The clock libfaketime gives, and the time (ms since 1970) a program should read right after start. */
  clock?: { faketime: string; expectMs: number };
  settings: FactorSetting[];
}

export interface FactorContext {
  /** Which re-run this is (values cycle through each factor's list). */
  index: number;
  /** The reference's date: the pinned clock and the pinned index. */
  referenceDate: Date;
  /** How the command's test runner shuffles (its ecosystem's repro part); absent: a runner envproof cannot shuffle. */
  order?: RunnerOrder;
  /** What the environment holds that the runner's shuffle depends on (a shuffling plugin), probed after the install. */
  facts?: EnvironmentFacts;
  /** Whether the project's package manager can resolve against a date (pip via the dated index, npm --before). */
  datedResolution: { supported: true } | { supported: false; why: string };
  /** Whether libfaketime shifts the monotonic clock too (the ecosystem's repro part says; the JVM needs it). */
  fakesMonotonicClock?: boolean;
  now: Date;
  /** The factors the project's runtime leaves to chance by default (Python: the hash seed); the runner's shuffle is added when it shuffles. */
  randomByDefault?: readonly FactorId[];
  /** Draws a seed for a factor left to chance; absent: no factor is drawn (the run is shaped by `varied` and `pinned` only). */
  draw?: () => number;
  /** The seeds the reference run drew: a pinned factor replays them, so the control replays the reference exactly. */
  referenceSeeds?: Partial<Record<FactorId, number>>;
  /** The seeds of the re-run being explained: a varied factor takes them, so attribution tries the values that run had. */
  triedSeeds?: Partial<Record<FactorId, number>>;
  /** What the reference ran under: a pinned factor takes its value (the reference's TZ, locale, clock). */
  referenceEnvironment?: ReferenceEnvironment;
  /**
   * Factors the re-run being explained left as the default environment has them while the reference had another
   * value: varied, they take the default's value (what that re-run had), not an alternative.
   */
  atDefault?: readonly FactorId[];
}

/** The seeds a run drew, per factor. */
export function drawnSeeds(settings: readonly FactorSetting[]): Partial<Record<FactorId, number>> {
  return Object.fromEntries(settings.filter((s) => s.mode === 'drawn' && s.seed !== undefined).map((s) => [s.factor, s.seed]));
}

/** The factors of this run that are random unless set: the runtime's, and the order when the runner shuffles by default. */
function randomFactors(ctx: FactorContext): FactorId[] {
  return [...(ctx.randomByDefault ?? []), ...(ctx.order?.shufflesByDefault?.(ctx.facts ?? {}) ? (['test-order'] as const) : [])];
}

export function emptyShape(): RunShape {
  return { env: {}, prefix: [], runnerArgs: [], pytestOptions: [], network: false, extraPathEntry: false, settings: [] };
}

const DAY_MS = 86_400_000;

/** libfaketime's absolute start time: "@YYYY-MM-DD hh:mm:ss" (UTC, as TZ does not apply to FAKETIME). */
export function faketimeAt(date: Date): string {
  return `@${date.toISOString().slice(0, 19).replace('T', ' ')}`;
}

type Mode = FactorSetting['mode'];

function setting(factor: FactorId, mode: Mode, value: string, applied = true, note?: string): FactorSetting {
  return { factor, mode, value, applied, ...(note ? { note } : {}) };
}

/** The seed a seeded factor takes: drawn, replayed from the reference when pinned, the re-run's when varied. */
function seedOf(factor: FactorId, mode: Mode, ctx: FactorContext, fallback: number | undefined): number | undefined {
  if (mode === 'drawn') return ctx.draw!();
  if (mode === 'pinned') return ctx.referenceSeeds?.[factor] ?? fallback;
  return ctx.triedSeeds?.[factor] ?? fallback;
}

function addOrderOptions(shape: RunShape, options: OrderOptions | undefined): void {
  shape.runnerArgs.push(...(options?.runnerArgs ?? []));
  shape.pytestOptions.push(...(options?.pytestOptions ?? []));
}

function orderSetting(mode: Mode, ctx: FactorContext, shape: RunShape): FactorSetting {
  const natural = 'the runner\'s own order';
  const facts = ctx.facts ?? {};
  if (!ctx.order) return mode === 'pinned' ? setting('test-order', mode, natural) : setting('test-order', mode, 'unchanged', false, 'the command\'s test runner is not one envproof knows how to shuffle');
  // Pinned, a runner is shuffled only to replay the seed the reference drew (it shuffles by default).
  const seed = seedOf('test-order', mode, ctx, mode === 'pinned' ? undefined : 1000 + ctx.index);
  const shuffled = seed === undefined ? undefined : ctx.order.shuffled(seed, facts);
  if (!shuffled || 'why' in shuffled) {
    if (mode !== 'pinned') return setting('test-order', mode, 'unchanged', false, shuffled?.why);
    addOrderOptions(shape, ctx.order.natural?.(facts));
    return setting('test-order', mode, natural);
  }
  addOrderOptions(shape, shuffled.options);
  return { ...setting('test-order', mode, `shuffled, seed ${seed} (${shuffled.label})`), seed: seed! };
}

/**
 * Applies one factor, varied (to the index-th alternative value), pinned (the shim's value; a seed the reference
 * drew), or drawn (a new random seed), to `shape`.
 */
export function applyFactor(factor: FactorId, mode: Mode, ctx: FactorContext, shape: RunShape): void {
  const i = ctx.index;
  const add = (s: FactorSetting): void => {
    shape.settings.push(s);
  };
  switch (factor) {
    case 'timezone': {
      const tz = mode === 'pinned' ? (ctx.referenceEnvironment?.timezone ?? DEFAULT_TIMEZONE) : ctx.atDefault?.includes(factor) ? DEFAULT_TIMEZONE : TIMEZONES[i % TIMEZONES.length]!;
      shape.env.TZ = tz;
      return add(setting(factor, mode, `TZ=${tz}`));
    }
    case 'locale': {
      const lang = mode === 'pinned' ? (ctx.referenceEnvironment?.locale ?? DEFAULT_LOCALE) : ctx.atDefault?.includes(factor) ? DEFAULT_LOCALE : LOCALES[i % LOCALES.length]!;
      Object.assign(shape.env, { LANG: lang, LC_ALL: lang });
      if (lang !== DEFAULT_LOCALE) shape.locale = lang;
      return add(setting(factor, mode, `LANG=LC_ALL=${lang}`));
    }
    case 'clock': {
      const shiftDays = 1000 * (i + 1);
      const at = ctx.referenceEnvironment?.date ? new Date(ctx.referenceEnvironment.date) : ctx.referenceDate;
      const faketime = mode === 'pinned' ? faketimeAt(at) : `+${shiftDays}d`;
      const expectMs = mode === 'pinned' ? at.getTime() : ctx.now.getTime() + shiftDays * DAY_MS;
      shape.clock = { faketime, expectMs };
      // Set by `env` after the sandbox's own setup, so that libfaketime loads into the test command only.
      shape.prefix.push('env', `LD_PRELOAD=${FAKETIME_LIBRARY}`, `FAKETIME=${faketime}`, `FAKETIME_DONT_FAKE_MONOTONIC=${ctx.fakesMonotonicClock ? 0 : 1}`);
      return add(setting(factor, mode, mode === 'pinned' ? `clock fixed at ${at.toISOString()}` : `clock shifted ${shiftDays} days ahead`));
    }
    case 'path':
      if (mode === 'pinned') return add(setting(factor, mode, 'PATH frozen as the environment sets it'));
      shape.extraPathEntry = true;
      return add(setting(factor, mode, 'an extra first PATH entry (wrappers of the same tools)'));
    case 'home':
      if (mode === 'pinned') return add(setting(factor, mode, 'HOME as the environment sets it'));
      shape.homeName = `other home ${i + 1}`;
      return add(setting(factor, mode, `HOME=<work>/${shape.homeName}`));
    case 'umask': {
      const umask = mode === 'pinned' ? '022' : UMASKS[i % UMASKS.length]!;
      shape.prefix.push('/bin/sh', '-c', `umask ${umask} && exec "$@"`, 'umask');
      return add(setting(factor, mode, `umask ${umask}`));
    }
    case 'cpus':
      if (mode === 'pinned') return add(setting(factor, mode, 'every CPU'));
      shape.prefix.push('taskset', '--cpu-list', '0');
      shape.visibleCpus = 1;
      return add(setting(factor, mode, 'one CPU (taskset --cpu-list 0; in bwrap also the CPU lists under /sys and /proc/stat)'));
    case 'test-order':
      return add(orderSetting(mode, ctx, shape));
    case 'hash-seed': {
      if (!ctx.randomByDefault?.includes(factor)) return add(setting(factor, mode, 'unchanged', false, 'this runtime draws no hash seed at start (PYTHONHASHSEED is Python\'s)'));
      const seed = seedOf(factor, mode, ctx, mode === 'pinned' ? 0 : i + 1)!;
      shape.env.PYTHONHASHSEED = String(seed);
      return add({ ...setting(factor, mode, `PYTHONHASHSEED=${seed}`), seed });
    }
    case 'network':
      shape.network = mode === 'varied';
      return add(setting(factor, mode, mode === 'varied' ? 'network on' : 'network off'));
    case 'dependency-drift': {
      if (mode === 'varied') {
        delete shape.indexDate;
        return add(setting(factor, mode, 'dependencies resolved against the live registry'));
      }
      if (!ctx.datedResolution.supported) return add(setting(factor, mode, 'unchanged', false, ctx.datedResolution.why));
      shape.indexDate = ctx.referenceDate.toISOString();
      return add(setting(factor, mode, `dependencies resolved against the registry as of ${shape.indexDate}`));
    }
  }
}

/**
 * A run's shape: `varied` factors at their index-th alternative, `pinned` ones at the shim's value (or the reference's
 * seed), the factors random by default drawn (with `ctx.draw`), the rest as the environment has them.
 */
export function shapeOf(varied: readonly FactorId[], pinned: readonly FactorId[], ctx: FactorContext, base: Partial<RunShape> = {}): RunShape {
  const shape = { ...emptyShape(), ...base };
  for (const f of pinned) if (!varied.includes(f)) applyFactor(f, 'pinned', ctx, shape);
  for (const f of varied) applyFactor(f, 'varied', ctx, shape);
  if (ctx.draw) for (const f of randomFactors(ctx)) if (!varied.includes(f) && !pinned.includes(f)) applyFactor(f, 'drawn', ctx, shape);
  return shape;
}
