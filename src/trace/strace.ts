/** Which strace a sandbox has, what it supports, and the command line that traces a program with it. */
import { EnvproofError } from '../core/errors.js';
import type { Sandbox } from '../sandbox/types.js';

export interface StraceFeatures {
  /** Stops the tracee only at traced syscalls (much lower overhead); needs kernel support, so it is tried. */
  seccompBpf: boolean;
  /** `-z`: failed calls are left out of the log. */
  successfulOnly: boolean;
  /** `--kill-on-exit` (newer strace than Debian 12 has): tracees die with strace. */
  killOnExit: boolean;
}

/** Calls that open or execute files, and those needed to follow each process's working directory. */
const TRACED_CALLS = ['?open', 'openat', '?openat2', 'execve', '?execveat', 'chdir', 'fchdir', '?fork', '?vfork', 'clone', '?clone3'];

const PROBE_TIMEOUT_MS = 30_000;
const cache = new Map<string, Promise<StraceFeatures>>();

/** Probes the sandbox's strace once per root filesystem and remembers the answer. */
export function straceFeatures(sandbox: Sandbox): Promise<StraceFeatures> {
  const key = `${sandbox.backend}:${sandbox.rootOnHost}`;
  let features = cache.get(key);
  if (!features) {
    features = probe(sandbox);
    cache.set(key, features);
    features.catch(() => cache.delete(key));
  }
  return features;
}

async function probe(sandbox: Sandbox): Promise<StraceFeatures> {
  const run = (argv: string[]) =>
    sandbox.exec({ argv, cwd: sandbox.workDir, timeoutMs: PROBE_TIMEOUT_MS, network: false });
  const help = await run(['strace', '-h']);
  if (help.spawnError || help.exitCode !== 0) {
    throw new EnvproofError(
      `strace is not available in the ${sandbox.backend} sandbox${help.spawnError ? `: ${help.spawnError}` : ''}`,
      sandbox.backend === 'host'
        ? 'install it (apt-get install strace, or run scripts/setup.sh)'
        : "add strace to the sandbox's root filesystem recipe",
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
  };
}

/** The command that runs `argv` under strace, writing the log to `logPath` (a path inside the sandbox). */
export function straceArgv(features: StraceFeatures, logPath: string, argv: readonly string[]): string[] {
  return [
    'strace',
    '-f',
    '-q',
    '-y', // file descriptors with their paths: `openat(3</dir>, ...)`, `AT_FDCWD</cwd>`
    ...(features.seccompBpf ? ['--seccomp-bpf'] : []),
    ...(features.successfulOnly ? ['-z'] : []),
    ...(features.killOnExit ? ['--kill-on-exit'] : []),
    '-e',
    `trace=${TRACED_CALLS.join(',')}`,
    '-o',
    logPath,
    '--',
    ...argv,
  ];
}
