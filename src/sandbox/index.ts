import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EcosystemId } from '../core/types.js';
import { EnvproofError, UsageError } from '../core/errors.js';
import { ecosystems } from '../ecosystems/index.js';
import { BwrapSandbox } from './bwrap.js';
import { CacheLayers } from './cache-layers.js';
import { ContainerSandbox } from './container.js';
import { checkEngine, engineSetup } from './engine.js';
import { ensureImage, type ImageBase } from './images.js';
import { HostSandbox } from './host.js';
import { sandboxUid } from './environment.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './limits.js';
import { bwrapWorks } from './probe.js';
import { commandExists, ensureEnvironment, environmentDirs, MARKER_FILE, normaliseSystemPackages, rootfsRoot } from './rootfs.js';
import { DEBIAN_SUITE } from './recipes.js';
import type { Sandbox, SandboxBackend } from './types.js';

export type BackendChoice = SandboxBackend | 'auto';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'bwrap', 'docker', 'podman', 'host'];

/** What, beside the backend, decides the environment a project runs in. */
export interface EnvironmentChoice {
  /** Base image of the docker/podman backends (default debian, the same system as bwrap's). */
  imageBase?: ImageBase;
  /**
   * Debian packages to add to the language's clean environment (a derived environment, built once and cached;
   * bwrap, podman and docker). Empty or absent: the paper's strict clean environment.
   */
  systemPackages?: string[];
}

export interface SandboxOptions extends EnvironmentChoice {
  backend: BackendChoice;
  language: EcosystemId;
  /** Host directory the program may write to; it must exist. */
  hostWorkDir: string;
  /** Progress lines for the terminal (e.g. while an environment is being built). */
  progress?: (message: string) => void;
  limits?: Partial<SandboxLimits>;
  /**
   * With `auto`, run on the host (with a warning on the sandbox) when bubblewrap cannot run, instead of refusing.
   * Never the default: generated code does not run unprotected unless someone chose so.
   */
  allowHostFallback?: boolean;
}

/** The backend a choice stands for; `fallback` says why `auto` could not use bwrap (and fell back to host). */
export interface ResolvedBackend {
  backend: SandboxBackend;
  fallback?: string;
}

let bwrapVerdict: string | null | undefined;

/**
 * Why the bwrap backend cannot be used on this machine, or null when it can: bubblewrap must work, and
 * environments must exist or be buildable (root with debootstrap).
 */
export function bwrapUnusable(): string | null {
  if (bwrapVerdict === undefined) {
    const probe = bwrapWorks();
    const canBuild = process.getuid?.() === 0 && commandExists('debootstrap');
    bwrapVerdict = !probe.ok
      ? `bubblewrap cannot run here: ${probe.detail}`
      : canBuild || hasBuiltEnvironment()
        ? null
        : 'no environment is built and this user cannot build one (that needs root and debootstrap)';
  }
  return bwrapVerdict;
}

function hasBuiltEnvironment(): boolean {
  return environmentDirs().some((name) => existsSync(path.join(rootfsRoot(), name, MARKER_FILE)));
}

/**
 * The backend `choice` stands for. `auto` is bwrap; where bwrap cannot run it is host only with
 * `allowHostFallback` (and says why), otherwise an error that names the cause and the explicit choices.
 */
export function resolveBackend(choice: BackendChoice, allowHostFallback = false): ResolvedBackend {
  if (choice !== 'auto') return { backend: choice };
  const why = bwrapUnusable();
  if (why === null) return { backend: 'bwrap' };
  if (allowHostFallback) return { backend: 'host', fallback: why };
  throw new EnvproofError(
    `--sandbox auto found no isolating sandbox: ${why}; generated code is not run unprotected unless you choose so`,
    'fix bubblewrap (`envproof env doctor` says how), use --sandbox podman, or pass --sandbox host to run on this machine without isolation',
  );
}

/** The system package list, normalised, after checking that `backend` can give what `choice` asks for. */
function checkedChoice(backend: SandboxBackend, choice: EnvironmentChoice): string[] {
  const systemPackages = normaliseSystemPackages(choice.systemPackages ?? []);
  if (choice.imageBase === 'ubuntu' && backend !== 'docker' && backend !== 'podman') {
    throw new UsageError(`--image-base ubuntu needs --sandbox podman or docker (the ${backend} sandbox is Debian ${DEBIAN_SUITE})`);
  }
  if (backend === 'host' && systemPackages.length > 0) {
    throw new UsageError('--system-packages needs an isolating sandbox (bwrap, podman or docker)', 'on the host, install the packages with apt-get yourself and leave out --system-packages');
  }
  return systemPackages;
}

/**
 * Builds (or finds cached) what `backend` needs for `language` before any project runs, so that a wrong
 * package name or an engine that cannot run is an error up front, not a failure of each run.
 */
export async function prepareEnvironment(
  backend: SandboxBackend,
  language: EcosystemId,
  choice: EnvironmentChoice,
  progress: (message: string) => void = () => {},
): Promise<void> {
  const systemPackages = checkedChoice(backend, choice);
  if (backend === 'bwrap') await ensureEnvironment(language, { progress, systemPackages });
  if (backend === 'podman' || backend === 'docker') {
    await checkEngine(backend);
    await engineSetup(backend, { image: (await ensureImage(backend, language, choice.imageBase ?? 'debian', systemPackages, progress)).tag });
  }
}


/** Opens the cache layers for a sandbox made by `make`, and removes them again if it cannot be made. */
async function withCacheLayers<T>(make: (caches: CacheLayers) => T | Promise<T>): Promise<T> {
  // Every package manager's shared cache, with the check that decides what of a run's downloads it takes.
  const caches = await CacheLayers.open(ecosystems().flatMap((e) => e.caches.publishers), sandboxUid());
  try {
    return await make(caches);
  } catch (err) {
    await caches.dispose();
    throw err;
  }
}

/** Creates the sandbox for one project, building the language's environment (or image) first when it is missing. */
export async function createSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const { backend, fallback } = resolveBackend(opts.backend, opts.allowHostFallback);
  const systemPackages = checkedChoice(backend, opts);
  switch (backend) {
    case 'host': {
      return new HostSandbox(opts.language, opts.hostWorkDir, fallback ? `--sandbox auto fell back to host because ${fallback}.` : undefined);
    }
    case 'bwrap': {
      const probe = bwrapWorks();
      if (!probe.ok) {
        throw new EnvproofError(`sandbox "bwrap" cannot run here: ${probe.detail}`, 'run `envproof env doctor` for what to fix, or use --sandbox host');
      }
      const env = await ensureEnvironment(opts.language, { progress: opts.progress, systemPackages });
      return withCacheLayers((caches) => new BwrapSandbox(opts.language, opts.hostWorkDir, env, caches, { ...DEFAULT_LIMITS, ...opts.limits }));
    }
    case 'docker':
    case 'podman': {
      await checkEngine(backend);
      const image = await ensureImage(backend, opts.language, opts.imageBase ?? 'debian', systemPackages, opts.progress ?? (() => {}));
      const setup = await engineSetup(backend, { image: image.tag });
      const sandbox = await withCacheLayers((caches) => new ContainerSandbox(backend, setup, opts.language, opts.hostWorkDir, image, caches, { ...DEFAULT_LIMITS, ...opts.limits }));
      await sandbox.loadBaseline(systemPackages).catch(async (err: unknown) => {
        await sandbox.dispose();
        throw err;
      });
      return sandbox;
    }
  }
}
