/**
 * A CycloneDX 1.6 JSON SBOM of one audit, built with the CycloneDX library for JavaScript: every installed package
 * with its package URL, version and the hashes its package manager gives, the dependency graph, and what the trace
 * showed in CycloneDX's own `scope`: `required` loaded at run time (D3), `optional` declared but never loaded (a
 * phantom), `excluded` installed but neither declared nor loaded. What CycloneDX has no field for (declared in D1,
 * installed in D2) is under the `envproof:` property namespace. A license the installed metadata declares is the
 * component's license expression, or its named licenses (Maven). Loaded packages carry `evidence.occurrences`, the
 * files the program opened; the library has no model for occurrences yet, so they are added to its normalised
 * output (docs/sbom.md).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Enums, Models, Serialize, Spec } from '@cyclonedx/cyclonedx-library';
import type { AuditReport, ComponentEntry } from '../audit/report.js';
import { componentKey } from '../ecosystems/outputs.js';

const PROJECT_REF = 'envproof:project';

function bomRef(c: ComponentEntry): string {
  return `envproof:component:${componentKey(c)}`;
}

function property(name: string, value: string | boolean): Models.Property {
  return new Models.Property(`envproof:${name}`, String(value));
}

/** What the traced runs showed of a component; none when no traced command started (D3 unknown). */
function scopeOf(c: ComponentEntry, traced: boolean): Enums.ComponentScope | undefined {
  if (!traced) return undefined;
  return c.loaded ? Enums.ComponentScope.Required : c.declared ? Enums.ComponentScope.Optional : Enums.ComponentScope.Excluded;
}

/** An SPDX expression as CycloneDX's expression; named licenses one entry each, by SPDX id where it is known. */
function licensesOf(c: ComponentEntry): { licenses?: Models.LicenseRepository } {
  if (c.license) return { licenses: new Models.LicenseRepository([new Models.LicenseExpression(c.license)]) };
  if (!c.namedLicenses) return {};
  return {
    licenses: new Models.LicenseRepository(
      c.namedLicenses.map((l) => {
        const url = l.url ? { url: l.url } : {};
        return l.id ? new Models.SpdxLicense(l.id, url) : new Models.NamedLicense(l.name, url);
      }),
    ),
  };
}

function component(c: ComponentEntry, traced: boolean): Models.Component {
  const scope = scopeOf(c, traced);
  return new Models.Component(Enums.ComponentType.Library, c.name, {
    bomRef: bomRef(c),
    ...(scope ? { scope } : {}),
    ...(c.version ? { version: c.version } : {}),
    ...(c.purl ? { purl: c.purl } : {}),
    hashes: new Models.HashDictionary(c.hashes.map((h) => [h.algorithm as Enums.HashAlgorithm, h.value] as const)),
    ...licensesOf(c),
    properties: new Models.PropertyRepository([
      property('declared', c.declared),
      property('installed', c.installed),
      ...(c.id ? [property('id', c.id)] : []),
      ...(c.hashSource ? [property('hashSource', c.hashSource)] : []),
      ...Object.entries(c.properties ?? {}).map(([name, value]) => property(name, value)),
    ]),
  });
}

export function renderCycloneDx(report: AuditReport): string {
  const project = new Models.Component(Enums.ComponentType.Application, path.basename(report.project), {
    bomRef: PROJECT_REF,
    properties: new Models.PropertyRepository([
      property('ecosystem', report.ecosystem),
      property('manifest', report.manifest),
      property('sandbox', report.sandbox.backend),
      ...report.runs.map((r, i) => property(`run:${i + 1}`, r.command)),
    ]),
  });
  const bom = new Models.Bom({ serialNumber: `urn:uuid:${randomUUID()}` });
  bom.metadata.timestamp = new Date();
  bom.metadata.component = project;
  bom.metadata.tools.components.add(new Models.Component(Enums.ComponentType.Application, 'envproof', { version: report.tool.version }));

  const traced = report.layers.traced !== null;
  const byKey = new Map(report.components.map((c) => [componentKey(c), component(c, traced)] as const));
  for (const c of report.components) {
    const model = byKey.get(componentKey(c))!;
    for (const dep of c.dependsOn) model.dependencies.add(byKey.get(dep)!.bomRef);
    bom.components.add(model);
  }
  for (const c of report.components.filter((c) => c.direct)) project.dependencies.add(byKey.get(componentKey(c))!.bomRef);

  const normalized = new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6).makeForBom().normalize(bom, { sortLists: true }) as unknown as {
    components?: { 'bom-ref'?: string; evidence?: Record<string, unknown> }[];
  };
  const files = new Map(report.components.map((c) => [bomRef(c), c.files]));
  for (const c of normalized.components ?? []) {
    const opened = files.get(c['bom-ref'] ?? '');
    if (opened?.length) c.evidence = { ...c.evidence, occurrences: opened.map((location) => ({ location })) };
  }
  return `${JSON.stringify(normalized, null, 2)}\n`;
}
