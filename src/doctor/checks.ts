import { runProcess } from '../core/process.js';
import type { DoctorCheck } from '../ecosystems/facts.js';
import { ecosystems } from '../ecosystems/index.js';

export interface Check {
  name: string;
  ok: boolean;
  /** The version found, or what is wrong. */
  detail: string;
  /** A command that fixes it. */
  fix?: string;
  /** Needed only for a backend one may not use (podman, docker, host): reported, but not a failure. */
  optional?: boolean;
}

const APT = 'apt-get update && apt-get install -y';

const STRACE: DoctorCheck = { name: 'strace', argv: ['strace', '-V'], version: /version (\S+)/, fix: `${APT} strace` };

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', LANG: 'C.UTF-8' };

async function toolCheck(t: DoctorCheck): Promise<Check> {
  const r = await runProcess(t.argv, { env: ENV, timeoutMs: 30_000 });
  const m = t.version.exec(`${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, ''));
  if (r.exitCode === 0 && m) return { name: t.name, ok: true, detail: m[1]! };
  return { name: t.name, ok: false, detail: r.spawnError ? 'not found' : `does not work (exit ${r.exitCode})`, fix: t.fix };
}

/** Can this process trace a child? (ptrace may be forbidden by Yama, seccomp or a container profile.) */
export async function ptraceCheck(): Promise<Check> {
  const r = await runProcess(['strace', '-f', '-qq', '-e', 'trace=none', 'true'], { env: ENV, timeoutMs: 30_000 });
  if (r.spawnError) return { name: 'ptrace permitted', ok: false, detail: 'strace is not installed', fix: `${APT} strace` };
  if (r.exitCode === 0) return { name: 'ptrace permitted', ok: true, detail: 'strace can trace a child process' };
  return {
    name: 'ptrace permitted',
    ok: false,
    detail: r.stderr.trim().split('\n')[0] ?? 'strace failed',
    fix: 'sudo sysctl -w kernel.yama.ptrace_scope=1 (in a container: --cap-add SYS_PTRACE)',
  };
}

async function seccompCheck(): Promise<Check> {
  const r = await runProcess(['strace', '-f', '--seccomp-bpf', '-qq', '-e', 'trace=openat', '-o', '/dev/null', 'true'], { env: ENV, timeoutMs: 30_000 });
  return r.exitCode === 0
    ? { name: 'strace --seccomp-bpf', ok: true, detail: 'supported (faster tracing)' }
    : { name: 'strace --seccomp-bpf', ok: false, detail: 'not supported: tracing works but is slower', fix: `${APT} strace (version 5.3 or later)` };
}

export async function runDoctor(): Promise<Check[]> {
  const [strace, ...tools] = await Promise.all([STRACE, ...ecosystems().flatMap((e) => e.doctor)].map(toolCheck));
  return [strace!, await ptraceCheck(), await seccompCheck(), ...tools];
}
