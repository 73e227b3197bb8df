/**
 * Directory trees copied by the system's cp, which is several times faster than Node's recursive copy on trees of
 * thousands of files (a Go build cache: 0.4 s against 2 s), and shares blocks where the file system can (reflinks).
 * Symbolic links are copied as links, never followed.
 */
import { EnvproofError } from './errors.js';
import { runProcess } from './process.js';

const HOST_ENV = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' });

async function cp(args: string[], what: string): Promise<void> {
  const r = await runProcess(['cp', '--reflink=auto', ...args], { env: HOST_ENV(), timeoutMs: 600_000 });
  if (r.exitCode !== 0) throw new EnvproofError(`cannot copy ${what}: ${r.stderr.trim().split('\n')[0] ?? `cp exited with ${r.exitCode}`}`);
}

/** Copies `entries` into the existing directory `to` as they are: owners, modes, times and links (`cp -a`). */
export function copyEntriesInto(entries: readonly string[], to: string): Promise<void> {
  return entries.length === 0 ? Promise.resolve() : cp(['-a', '-t', to, '--', ...entries], `${entries.length} entries to ${to}`);
}

/** Copies the directory `from` as the new directory `to`, owned by envproof, modes kept (`cp -R`, links not followed). */
export function copyDirectory(from: string, to: string): Promise<void> {
  return cp(['-R', '--no-dereference', '--preserve=mode', '-T', '--', from, to], `${from} to ${to}`);
}
