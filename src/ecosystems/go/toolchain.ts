/**
 * The Go toolchain of the clean environment. Debian bookworm's golang (1.19) is older than the `go` line of most
 * go.mod files written today, so the environment gets the toolchain the Go module proxy serves as the module
 * golang.org/toolchain (the same archive `GOTOOLCHAIN=goX.Y.Z` makes the go command download). The version and
 * the archive's `h1:` hash are pinned (the hash as the checksum database records it), so every environment holds
 * the same verified toolchain; it is unpacked into /usr/local/go with `go` and `gofmt` linked into /usr/local/bin.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import { moduleHash, readZip } from './module-zip.js';
import { proxyBaseUrl } from './go-env.js';

export const GO_TOOLCHAIN = {
  /** What `go version` reports. */
  version: 'go1.26.8',
  /** The language version it implements: the newest `go` line of go.mod it builds. */
  language: '1.26',
  module: 'golang.org/toolchain',
  /** One archive per platform; envproof's environments are linux-amd64. */
  moduleVersion: 'v0.0.1-go1.26.8.linux-amd64',
  h1: 'h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM=',
  /** Where the environment holds it. */
  goroot: '/usr/local/go',
} as const;

/** Downloads, verifies and unpacks the pinned toolchain into the root filesystem `rootDir` (on the host). */
export async function installGoToolchain(rootDir: string, progress: (message: string) => void): Promise<void> {
  if (os.arch() !== 'x64') {
    throw new EnvproofError(`the Go environment is built for linux-amd64, and this machine is ${os.arch()}`, 'use --sandbox host with a Go toolchain installed here');
  }
  const { module, moduleVersion, h1, goroot } = GO_TOOLCHAIN;
  const url = `${proxyBaseUrl()}/${module}/@v/${moduleVersion}.zip`;
  progress(`downloading the ${GO_TOOLCHAIN.version} toolchain from ${url}`);
  let zip: Buffer;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10 * 60_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    zip = Buffer.from(await res.arrayBuffer());
  } catch (err) {
    throw new EnvproofError(`cannot download the Go toolchain from ${url}: ${(err as Error).message}`, 'check that this machine reaches the Go module proxy (GOPROXY)');
  }
  const entries = readZip(zip);
  const got = moduleHash(entries);
  if (got !== h1) throw new EnvproofError(`the Go toolchain from ${url} does not match its checksum (${got}, expected ${h1})`, 'the proxy served something else; try again or set GOPROXY to another proxy');
  const prefix = `${module}@${moduleVersion}/`;
  const target = path.join(rootDir, goroot);
  for (const e of entries) {
    if (!e.name.startsWith(prefix) || e.name.includes('/../')) continue;
    const file = path.join(target, e.name.slice(prefix.length));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, e.data, { mode: e.mode ?? 0o644 });
  }
  for (const tool of ['go', 'gofmt']) await symlink(path.posix.join(goroot, 'bin', tool), path.join(rootDir, 'usr/local/bin', tool));
}
