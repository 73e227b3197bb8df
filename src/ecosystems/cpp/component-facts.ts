/**
 * SBOM facts of a CMake project. What CMake found is named after the Debian package that owns the file it resolved
 * (`pkg:deb/debian/<package>@<version>`, asked of the environment's dpkg), fetched content by its declared source
 * (`pkg:generic`). No hashes: Debian keeps no archive of an installed package (dpkg's per-file MD5 sums are not a
 * package hash) and fetched content is hashed only where its declaration says URL_HASH, which is not read yet.
 * CMake resolves nothing transitively, so the graph is the project depending on each found package.
 */
import type { Dependency } from '../../core/types.js';
import type { ComponentFact, ComponentFacts, PurlParts } from '../outputs.js';
import type { AttributionResult, AuditContext, InstallResult } from '../types.js';
import type { CmakeInstallDetails } from './configure.js';
import { debianOwners, usrMerged, type DebianPackage } from './dpkg.js';

function debianPurl(pkg: DebianPackage): PurlParts {
  return { type: 'deb', namespace: 'debian', name: pkg.name, ...(pkg.version ? { version: pkg.version } : {}), qualifiers: { arch: 'amd64' } };
}

function fact(dep: Dependency, purl: PurlParts): ComponentFact {
  return { name: dep.name, ...(dep.version ? { version: dep.version } : {}), purl, hashes: [], dependsOn: [] };
}

export async function cmakeComponentFacts(ctx: AuditContext, install: InstallResult<CmakeInstallDetails>, attribution: AttributionResult): Promise<ComponentFacts> {
  const resolved = install.installed.filter((d) => d.source?.startsWith('/'));
  const owners = await debianOwners(ctx.sandbox, resolved.map((d) => d.source!), ctx.envDir);
  const components: ComponentFact[] = [];
  for (const d of install.installed) {
    const owner = d.source && owners.get(usrMerged(d.source));
    if (owner) components.push(fact(d, debianPurl(owner)));
    else if (d.source?.startsWith('FetchContent')) components.push(fact(d, { type: 'generic', name: d.name, ...(d.version ? { version: d.version } : {}) }));
  }
  // Loaded libraries nothing declared: their Debian package is their identity (attribution's id, and the version
  // in Debian's own format, as dpkg gives it for the found packages above).
  for (const d of attribution.traced) {
    const version = d.systemVersion ?? d.version;
    if (d.id && !install.installed.some((i) => i.name === d.name)) components.push(fact(d, debianPurl({ name: d.id, ...(version ? { version } : {}) })));
  }
  return { components, notes: ['C++: no hashes (Debian keeps no archive of installed packages; URL_HASH of fetched content is not read); no transitive graph (CMake resolves none)'] };
}
