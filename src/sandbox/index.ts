import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EcosystemId } from '../core/types.js';
import { EnvproofError } from '../core/errors.js';
import { BwrapSandbox } from './bwrap.js';
import { checkEngine, ContainerSandbox, ensureImage, type ImageBase } from './container.js';
import { HostSandbox } from './host.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './limits.js';
import { bwrapWorks } from './probe.js';
import { commandExists, ensureEnvironment, environmentDirs, MARKER_FILE, rootfsRoot } from './rootfs.js';
import type { Sandbox, SandboxBackend } from './types.js';

export type BackendChoice = SandboxBackend | 'auto';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'bwrap', 'docker', 'podman', 'host'];

export interface SandboxOptions {
  backend: BackendChoice;
  language: EcosystemId;
  /** Host directory the program may write to; it must exist. */
  hostWorkDir: string;
  /** Progress lines for the terminal (e.g. while an environment is being built). */
  progress?: (message: string) => void;
  limits?: Partial<SandboxLimits>;
  /** Base image of the docker/podman backends (default debian, the same system as bwrap's). */
  imageBase?: ImageBase;
}

let cachedDefault: SandboxBackend | undefined;

/**
 * The backend `auto` stands for on this machine: bwrap when bubblewrap works and environments exist or can be
 * built (root with debootstrap), otherwise host.
 */
export function defaultBackend(): SandboxBackend {
  cachedDefault ??= bwrapUsable() ? 'bwrap' : 'host';
  return cachedDefault;
}

function bwrapUsable(): boolean {
  if (!bwrapWorks().ok) return false;
  const canBuild = process.getuid?.() === 0 && commandExists('debootstrap');
  return canBuild || hasBuiltEnvironment();
}

function hasBuiltEnvironment(): boolean {
  return environmentDirs().some((lang) => existsSync(path.join(rootfsRoot(), lang, MARKER_FILE)));
}

/** Creates the sandbox for one project, building the language's environment first when it is missing. */
export async function createSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const backend = opts.backend === 'auto' ? defaultBackend() : opts.backend;
  switch (backend) {
    case 'host':
      return new HostSandbox(opts.language, opts.hostWorkDir);
    case 'bwrap': {
      const probe = bwrapWorks();
      if (!probe.ok) {
        throw new EnvproofError(`sandbox "bwrap" cannot run here: ${probe.detail}`, 'run `envproof env doctor` for what to fix, or use --sandbox host');
      }
      const env = await ensureEnvironment(opts.language, { progress: opts.progress });
      return new BwrapSandbox(opts.language, opts.hostWorkDir, env, { ...DEFAULT_LIMITS, ...opts.limits });
    }
    case 'docker':
    case 'podman': {
      await checkEngine(backend);
      const image = await ensureImage(backend, opts.language, opts.imageBase ?? 'debian', opts.progress ?? (() => {}));
      const sandbox = new ContainerSandbox(backend, opts.language, opts.hostWorkDir, image, { ...DEFAULT_LIMITS, ...opts.limits });
      await sandbox.loadBaseline();
      return sandbox;
    }
  }
}
