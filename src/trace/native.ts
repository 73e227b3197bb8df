/** The tracers' native programs, built from native/fasttrace by scripts/setup.sh. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** From src/trace/ and from dist/trace/ alike, the package root is two levels up. */
const BUILD_DIR = fileURLToPath(new URL('../../native/fasttrace/build/', import.meta.url));

export const NATIVE_PROGRAMS = {
  /** Loads the fast tracer into the kernel and serves runs (needs root: CAP_BPF and CAP_PERFMON). */
  fastTracer: `${BUILD_DIR}envproof-fasttrace`,
  /** Runs its arguments; a run's copy of it marks where the traced program starts. */
  gate: `${BUILD_DIR}envproof-gate`,
} as const;

/** The path of a native program, or null when it has not been built. */
export function nativeProgram(name: keyof typeof NATIVE_PROGRAMS): string | null {
  const file = NATIVE_PROGRAMS[name];
  return existsSync(file) ? file : null;
}
