import type { EcosystemId } from '../core/types.js';
import { EnvproofError } from '../core/errors.js';
import { HostSandbox } from './host.js';
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
}

/** The backend `auto` stands for on this machine. */
export function defaultBackend(): SandboxBackend {
  return 'host';
}

/** Creates the sandbox for one project, building the language's environment first when it is missing. */
export async function createSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const backend = opts.backend === 'auto' ? defaultBackend() : opts.backend;
  switch (backend) {
    case 'host':
      return new HostSandbox(opts.language, opts.hostWorkDir);
    default:
      throw new EnvproofError(
        `sandbox "${backend}" is not available yet`,
        'use --sandbox host for now (weaker isolation)',
      );
  }
}
