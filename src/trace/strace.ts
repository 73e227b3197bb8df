/** Which strace is used, what it supports, and the command line that traces with it. */
import { EnvproofError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import type { ExecResult, Sandbox } from '../sandbox/types.js';

export interface StraceFeatures {
  /** Stops the tracee only at traced syscalls (much lower overhead); needs kernel support, so it is tried. */
  seccompBpf: boolean;
  /** `-z`: failed calls are left out of the log. */
  successfulOnly: boolean;
  /** `--kill-on-exit` (newer strace than Debian 12 has): tracees die with strace. */
  killOnExit: boolean;
  /** `--decode-pids=pidns`: a child's pid in strace's pid namespace too, for processes in another one. */
  pidnsTranslation: boolean;
}

/** Calls that open or execute files, and those needed to follow each process's working directory. */
const TRACED_CALLS = ['?open', 'openat', '?openat2', 'execve', '?execveat', 'chdir', 'fchdir', '?fork', '?vfork', 'clone', '?clone3'];

const PROBE_TIMEOUT_MS = 30_000;
const cache = new Map<string, Promise<StraceFeatures>>();

/** Where strace runs: on the host, around the sandbox's command, or inside the sandbox. */
export type StracePlace = { host: true } | { host: false; sandbox: Sandbox };

/** Probes strace once per place (per root filesystem inside sandboxes) and remembers the answer. */
export function straceFeatures(place: StracePlace): Promise<StraceFeatures> {
  const key = place.host ? 'host' : `${place.sandbox.backend}:${place.sandbox.rootOnHost}`;
  let features = cache.get(key);
  if (!features) {
    features = probe(place);
    cache.set(key, features);
    features.catch(() => cache.delete(key));
  }
  return features;
}

async function probe(place: StracePlace): Promise<StraceFeatures> {
  const run = (argv: string[]): Promise<ExecResult> =>
    place.host
      ? runProcess(argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: PROBE_TIMEOUT_MS })
      : place.sandbox.exec({ argv, cwd: place.sandbox.workDir, timeoutMs: PROBE_TIMEOUT_MS, network: false });
  const help = await run(['strace', '-h']);
  if (help.spawnError || help.exitCode !== 0) {
    const where = place.host ? 'on this machine' : `in the ${place.sandbox.backend} sandbox`;
    throw new EnvproofError(
      `strace is not available ${where}${help.spawnError ? `: ${help.spawnError}` : ''}`,
      place.host ? 'install it (apt-get install strace, or run scripts/setup.sh)' : "add strace to the sandbox's root filesystem recipe",
      help.stderr,
    );
  }
  const text = help.stdout + help.stderr;
  const seccomp = text.includes('--seccomp-bpf')
    ? await run(['strace', '--seccomp-bpf', '-f', '-qq', '-e', 'trace=openat', '-o', '/dev/null', 'true'])
    : null;
  return {
    seccompBpf: seccomp !== null && seccomp.exitCode === 0,
    successfulOnly: text.includes('--successful-only'),
    killOnExit: text.includes('--kill-on-exit'),
    pidnsTranslation: text.includes('--decode-pids'),
  };
}

/** The strace command line up to `--`, writing the log to `logPath`; the command to trace follows. */
export function straceCommand(features: StraceFeatures, logPath: string): string[] {
  return [
    'strace',
    '-f',
    '-q',
    '-y', // file descriptors with their paths: `openat(3</dir>, ...)`, `AT_FDCWD</cwd>`
    ...(features.seccompBpf ? ['--seccomp-bpf'] : []),
    ...(features.successfulOnly ? ['-z'] : []),
    ...(features.killOnExit ? ['--kill-on-exit'] : []),
    ...(features.pidnsTranslation ? ['--decode-pids=pidns'] : []),
    '-e',
    `trace=${TRACED_CALLS.join(',')}`,
    '-o',
    logPath,
    '--',
  ];
}
