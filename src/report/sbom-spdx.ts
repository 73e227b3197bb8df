/**
 * An SPDX 2.3 JSON document of one audit, from the same components as the CycloneDX SBOM: one package per
 * installed or loaded package (purl as a PACKAGE-MANAGER external reference, the package manager's hashes as
 * checksums), the project as the package the document describes, and the package manager's graph as DEPENDS_ON
 * relationships. SPDX 2.3 has no field for what the trace showed: each package's `comment` says it.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { AuditReport, ComponentEntry } from '../audit/report.js';
import { componentKey } from '../ecosystems/outputs.js';

const NOASSERTION = 'NOASSERTION';

/** SPDX 2.3's checksum algorithms are CycloneDX's without the dash of the SHA-2 family (`SHA-256` → `SHA256`). */
function spdxAlgorithm(algorithm: string): string {
  return algorithm.replace(/^SHA-(\d+)$/, 'SHA$1');
}

/** An SPDX identifier: `SPDXRef-` then letters, digits, `.` and `-` only; the index keeps it unique. */
function spdxId(i: number, c: ComponentEntry): string {
  return `SPDXRef-Package-${i + 1}-${`${c.name}-${c.version ?? ''}`.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/-+$/, '')}`;
}

function traceComment(c: ComponentEntry, traced: boolean): string {
  const layers = [c.declared ? 'declared (D1)' : 'not declared', c.installed ? 'installed (D2)' : 'not installed'];
  const run = !traced ? 'D3 unknown: no traced command started' : c.loaded ? `loaded at run time (D3), from ${c.files.slice(0, 3).join(', ')}${c.files.length > 3 ? ', …' : ''}` : 'never loaded by the traced runs';
  return `envproof: ${layers.join(', ')}; ${run}`;
}

/**
 * Licenses a package's metadata names but SPDX has no id for: each distinct name and URL becomes a `LicenseRef-`
 * with the document's extracted licensing info, which says where the name comes from (SPDX 2.3 asks for its text).
 */
class LicenseRefs {
  private readonly refs = new Map<string, { licenseId: string; name: string; extractedText: string; seeAlsos?: string[] }>();

  /** The package's licenseDeclared: its expression, else its named licenses joined with OR, else NOASSERTION. */
  declared(c: ComponentEntry): string {
    if (c.license) return c.license;
    if (!c.namedLicenses?.length) return NOASSERTION;
    const ids = [...new Set(c.namedLicenses.map((l) => l.id ?? this.ref(l.name, l.url)))];
    return ids.length > 1 ? `(${ids.join(' OR ')})` : ids[0]!;
  }

  private ref(name: string, url: string | undefined): string {
    const key = `${name}\n${url ?? ''}`;
    let ref = this.refs.get(key);
    if (!ref) {
      const licenseId = `LicenseRef-${this.refs.size + 1}-${name.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '')}`;
      ref = { licenseId, name, extractedText: `The package metadata names this license "${name}"${url ? ` at ${url}` : ''}; envproof did not read its text.`, ...(url ? { seeAlsos: [url] } : {}) };
      this.refs.set(key, ref);
    }
    return ref.licenseId;
  }

  extracted(): object[] {
    return [...this.refs.values()];
  }
}

export function renderSpdx(report: AuditReport, now: Date = new Date()): string {
  const name = path.basename(report.project);
  const traced = report.layers.traced !== null;
  const ids = new Map(report.components.map((c, i) => [componentKey(c), spdxId(i, c)]));
  const projectId = 'SPDXRef-Package-project';
  const licenses = new LicenseRefs();
  const packages = [
    {
      SPDXID: projectId,
      name,
      downloadLocation: NOASSERTION,
      filesAnalyzed: false,
      licenseConcluded: NOASSERTION,
      licenseDeclared: NOASSERTION,
      copyrightText: NOASSERTION,
      primaryPackagePurpose: 'APPLICATION',
      comment: `the audited project (${report.ecosystem}, ${report.manifest}); traced: ${report.runs.map((r) => r.command).join('; ')}`,
    },
    ...report.components.map((c) => ({
      SPDXID: ids.get(componentKey(c))!,
      name: c.name,
      ...(c.version ? { versionInfo: c.version } : {}),
      downloadLocation: NOASSERTION,
      filesAnalyzed: false,
      ...(c.hashes.length ? { checksums: c.hashes.map((h) => ({ algorithm: spdxAlgorithm(h.algorithm), checksumValue: h.value })) } : {}),
      licenseConcluded: NOASSERTION,
      licenseDeclared: licenses.declared(c),
      copyrightText: NOASSERTION,
      ...(c.purl ? { externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: c.purl }] } : {}),
      primaryPackagePurpose: 'LIBRARY',
      comment: traceComment(c, traced),
    })),
  ];
  const dependsOn = (from: string, to: string) => ({ spdxElementId: from, relationshipType: 'DEPENDS_ON', relatedSpdxElement: to });
  const relationships = [
    { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: projectId },
    ...report.components.filter((c) => c.direct).map((c) => dependsOn(projectId, ids.get(componentKey(c))!)),
    ...report.components.flatMap((c) => c.dependsOn.filter((d) => ids.has(d)).map((d) => dependsOn(ids.get(componentKey(c))!, ids.get(d)!))),
  ];
  const doc = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `envproof audit of ${name}`,
    documentNamespace: `https://spdx.org/spdxdocs/envproof-${name.replace(/[^A-Za-z0-9.-]+/g, '-')}-${randomUUID()}`,
    creationInfo: { created: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), creators: [`Tool: envproof-${report.tool.version}`] },
    packages,
    ...(licenses.extracted().length ? { hasExtractedLicensingInfos: licenses.extracted() } : {}),
    relationships,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
