/**
 * The version a declaration resolves to: the copy the package manager gives the project for that declaration,
 * never the first copy of the name in D2 (npm nests other versions of a name for other packages). An ecosystem
 * whose D2 may hold a name at several versions says which one is the declaration's (`resolvedVersion`); otherwise
 * a name's only installed version is it, and a name at several versions has none envproof can vouch for.
 */
import type { Dependency } from '../core/types.js';
import type { EcosystemModule, InstallResult } from '../ecosystems/types.js';

/** The only version `installed` holds of `name` (pip's one distribution, Go's build list); undefined for none or several. */
export function onlyInstalledVersion(name: string, installed: readonly Dependency[]): string | undefined {
  const versions = new Set(installed.filter((d) => d.name === name && d.version).map((d) => d.version!));
  return versions.size === 1 ? [...versions][0] : undefined;
}

export function resolvedVersion(module: EcosystemModule, dep: Dependency, install: InstallResult): string | undefined {
  return module.resolvedVersion ? module.resolvedVersion(dep, install) : onlyInstalledVersion(dep.name, install.installed);
}
