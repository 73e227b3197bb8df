/** What a run does beside the test command to apply a factor and check that it took effect: the clock, the locale, the CPUs. */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AuditContext, InstallResult } from '../ecosystems/types.js';
import type { ExecResult } from '../sandbox/types.js';
import { faketimeAt, type RunShape } from './factors.js';
import type { ProjectKind } from './kinds.js';
import type { FactorId, FactorSetting } from './types.js';

/** Runs a command (a probe, localedef) the way the test command runs: the run's prefix, environment and network. */
export type ShapedExec = (argv: readonly string[]) => Promise<ExecResult>;

function notApplied(shape: RunShape, factor: FactorId, note: string): void {
  const s: FactorSetting | undefined = shape.settings.find((x) => x.factor === factor);
  if (s) Object.assign(s, { applied: false, note });
}

/** Reads the time a clock probe printed; undefined when it printed none. */
function probedMs(r: ExecResult): number | undefined {
  const s = Number(r.stdout.trim().split('\n').at(-1));
  return r.exitCode === 0 && Number.isFinite(s) ? s * 1000 : undefined;
}

const CLOCK_TOLERANCE_MS = 2 * 86_400_000;

/** The probe's pin for a run whose own clock is near the present: 2001-09-09 01:46:40 UTC (10^9 s), far from any present. */
export const FAR_PIN = new Date(1_000_000_000_000);

/**
 * Runs the runtime's clock probe under the run's libfaketime settings; marks the clock not applied when it did not
 * move. A clock pinned near the present (the reference taken now) would read the same whether libfaketime reached
 * the runtime or not, so such a run's probe is pinned at FAR_PIN instead, with the same libfaketime.
 */
export async function checkClock(kind: ProjectKind, ctx: AuditContext, install: InstallResult, shape: RunShape, exec: ShapedExec, now = Date.now()): Promise<void> {
  const clock = shape.clock!;
  const near = Math.abs(clock.expectMs - now) <= CLOCK_TOLERANCE_MS;
  const probe = kind.run(await kind.clockProbe(ctx), ctx, install).argv;
  // The run's prefix sets FAKETIME first; this `env` sets it again for the probe alone.
  const seen = probedMs(await exec(near ? ['env', `FAKETIME=${faketimeAt(FAR_PIN)}`, ...probe] : probe));
  const expectMs = near ? FAR_PIN.getTime() : clock.expectMs;
  if (seen === undefined) {
    notApplied(shape, 'clock', `the ${kind.id} clock probe printed no time, so the clock could not be checked`);
  } else if (Math.abs(seen - expectMs) > CLOCK_TOLERANCE_MS) {
    const read = new Date(seen).toISOString();
    const asked = near ? `a probe pinned at ${FAR_PIN.toISOString()} read ${read}` : `it read ${read}`;
    notApplied(shape, 'clock', `libfaketime did not reach the ${kind.id} runtime's clock (${asked})${kind.clockLimit ? `: ${kind.clockLimit}` : ''}`);
  }
}

/**
 * Compiles the run's locale (e.g. de_DE.UTF-8) with the environment's own localedef from Debian's locale sources into
 * the run's environment directory and points LOCPATH at it, then checks with `locale` that the C library can set it.
 * When it cannot, the locale setting says so: a test failing then fails on a missing locale, not on its formatting.
 */
export async function provideLocale(ctx: AuditContext, shape: RunShape, exec: ShapedExec): Promise<void> {
  const name = shape.locale!;
  const [source, charmap] = name.split('.');
  const dir = path.posix.join(ctx.envDir, 'locales');
  await mkdir(ctx.sandbox.toHost(dir) ?? dir, { recursive: true });
  const compiled = await exec(['localedef', '--inputfile', source!, '--charmap', charmap ?? 'UTF-8', path.posix.join(dir, name)]);
  if (compiled.exitCode !== 0) {
    return notApplied(shape, 'locale', `localedef could not compile ${name} (exit ${compiled.exitCode}): ${compiled.stderr.trim().split('\n').slice(-2).join(' ')}`);
  }
  shape.env.LOCPATH = dir;
  const check = await exec(['locale']);
  const complaint = check.stderr.split('\n').find((l) => /cannot set/i.test(l));
  if (check.exitCode !== 0 || complaint) notApplied(shape, 'locale', `the C library could not set ${name}: ${complaint ?? check.stderr.trim()}`);
}

/**
 * Runs the runtime's CPU probe under the run's settings and records which of the usual queries saw the reduced count;
 * the setting is marked not applied when none did.
 */
export async function checkCpus(kind: ProjectKind, ctx: AuditContext, install: InstallResult, shape: RunShape, exec: ShapedExec): Promise<void> {
  const want = shape.visibleCpus!;
  const r = await exec(kind.run(await kind.cpuProbe(ctx), ctx, install).argv);
  const seen = [...r.stdout.matchAll(/^(.+) (\d+)$/gm)].map((m) => ({ query: m[1]!, count: Number(m[2]) }));
  const reached = seen.filter((s) => s.count === want).map((s) => s.query);
  const missed = seen.filter((s) => s.count !== want).map((s) => `${s.query} (${s.count})`);
  const setting = shape.settings.find((s) => s.factor === 'cpus');
  if (!setting) return;
  if (reached.length === 0) {
    return notApplied(shape, 'cpus', seen.length ? `no query saw ${want} CPU: ${missed.join(', ')}` : `the ${kind.id} CPU probe printed nothing, so the count could not be checked`);
  }
  setting.note = `seen as ${want} by ${reached.join(', ')}${missed.length ? `; not by ${missed.join(', ')}` : ''}`;
}
