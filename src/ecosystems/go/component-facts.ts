/**
 * SBOM facts of a Go module: each module of the build list with its package URL (`pkg:golang/<module path>@<version>`,
 * of the module whose code was used: the replacement when one replaces it), its go.sum hashes, and the requirement
 * graph of `go mod graph` (edges to the versions minimal version selection chose). go.sum's `h1:` hashes are no
 * file hashes (gosum.ts), so they are carried as properties, not as CycloneDX hashes (docs/sbom.md). A shared
 * library a cgo program loaded is named by its Debian package (`pkg:deb/debian/…`), as for C++.
 */
import type { Dependency } from '../../core/types.js';
import { debianPurl } from '../cpp/dpkg.js';
import { componentKey, type ComponentFact, type ComponentFacts, type PurlParts } from '../outputs.js';
import type { AttributionResult, AuditContext, InstallResult, TracedDependency } from '../types.js';
import { licenseOfText } from '../licenses.js';
import { goDirs } from './go-env.js';
import { moduleGraph, type ModuleGraph } from './graph.js';
import { GO_SUM, readGoSum, type ModuleSums } from './gosum.js';
import { listModules } from './install.js';
import { moduleDependency, type GoModule } from './modules.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';

/** `github.com/google/uuid` → namespace `github.com/google`, name `uuid` (the module path's case is kept: it is significant). */
export function golangPurl(modulePath: string, version: string | undefined): PurlParts {
  const slash = modulePath.lastIndexOf('/');
  return {
    type: 'golang',
    ...(slash > 0 ? { namespace: modulePath.slice(0, slash) } : {}),
    name: modulePath.slice(slash + 1),
    ...(version ? { version } : {}),
  };
}

/** The properties of a module's go.sum lines, named after their form in go.sum. */
function sumProperties(sums: ModuleSums | undefined): Record<string, string> {
  return { ...(sums?.module ? { 'go.sum': sums.module } : {}), ...(sums?.goMod ? { 'go.sum/go.mod': sums.goMod } : {}) };
}

/**
 * `installed` is D2, `modules` the build list as the go command printed it, `libraries` the shared libraries the run
 * loaded (cgo), named by their Debian packages as C++ names them.
 */
export function moduleFacts(
  installed: readonly Dependency[],
  modules: readonly GoModule[],
  graph: ModuleGraph,
  sumText: string | undefined,
  libraries: readonly TracedDependency[] = [],
  licenses: ReadonlyMap<string, string> = new Map(),
): ComponentFacts {
  const sums = readGoSum(sumText ?? '');
  const byPath = new Map(modules.map((m) => [m.Path, m] as const));
  const keyOf = (m: GoModule) => componentKey(moduleDependency(m, ''));
  const components: ComponentFact[] = [];
  const noCode: string[] = [];
  for (const d of installed) {
    const m = byPath.get(d.name);
    if (!m) continue;
    const used = m.Replace ?? m;
    const properties = sumProperties(sums.get(`${used.Path}@${used.Version}`));
    if (!properties['go.sum']) noCode.push(d.name);
    const dependsOn = (graph.edges.get(`${m.Path}@${m.Version}`) ?? [])
      .map((to) => byPath.get(to.slice(0, to.lastIndexOf('@'))))
      .filter((t): t is GoModule => t !== undefined && t !== m)
      .map(keyOf);
    components.push({
      name: d.name,
      ...(d.version ? { version: d.version } : {}),
      purl: golangPurl(used.Path, used.Version),
      hashes: [],
      ...(Object.keys(properties).length ? { properties, hashSource: 'go.sum (h1: dirhash, as properties)' } : {}),
      ...(licenses.has(`${used.Path}@${used.Version}`) ? { license: licenses.get(`${used.Path}@${used.Version}`)! } : {}),
      dependsOn: [...new Set(dependsOn)],
    });
  }
  for (const lib of libraries) {
    const version = lib.systemVersion ?? lib.version;
    if (lib.id) components.push({ name: lib.name, ...(lib.version ? { version: lib.version } : {}), purl: debianPurl({ name: lib.id, ...(version ? { version } : {}) }), hashes: [], dependsOn: [] });
  }
  const notes: string[] = [];
  if (sumText === undefined) notes.push('there is no go.sum after the build: no checksums');
  else if (noCode.length) notes.push(`go.sum has only the go.mod checksum of ${noCode.join(', ')}: no build needed their code`);
  return { components, notes };
}

const LICENSE_FILES = ['LICENSE', 'LICENSE.txt', 'LICENSE.md', 'COPYING'];

/** Each downloaded module's license, from its LICENSE file in the audit's module cache (`path@version` → SPDX id). */
async function moduleLicenses(ctx: AuditContext, modules: readonly GoModule[]): Promise<Map<string, string>> {
  const cache = goDirs(ctx.envDir).modcache;
  const licenses = new Map<string, string>();
  for (const m of modules.map((m) => m.Replace ?? m)) {
    // Only the module cache: a directory replacement may be anywhere.
    if (!m.Dir || !m.Version || !m.Dir.startsWith(`${cache}/`)) continue;
    const host = ctx.hostPath(m.Dir);
    for (const name of LICENSE_FILES) {
      const text = await readProjectFileIfExists(host, name);
      if (text === undefined) continue;
      const id = licenseOfText(text);
      if (id) licenses.set(`${m.Path}@${m.Version}`, id);
      break;
    }
  }
  return licenses;
}

export async function goComponentFacts(ctx: AuditContext, install: InstallResult, attribution: AttributionResult): Promise<ComponentFacts> {
  const [modules, graph, sumText] = await Promise.all([listModules(ctx), moduleGraph(ctx), readProjectFileIfExists(ctx.host.projectDir, GO_SUM)]);
  return moduleFacts(install.installed, modules, graph, sumText, attribution.alternatives?.sharedLibraries, await moduleLicenses(ctx, modules));
}
