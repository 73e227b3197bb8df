/**
 * Licenses of resolved Maven artifacts, from the POMs in the local repository: an artifact's own `<licenses>`, else
 * its parent's, up the `<parent>` chain (Maven inherits `<licenses>`; resolving the artifact brought its parents into
 * the repository). The POMs are read inside the sandbox, where the repository may be a layer the host does not see.
 */
import { mavenLicense, type NamedLicense } from '../licenses.js';
import type { AuditContext } from '../types.js';
import { repositoryFile } from './repository-layout.js';
import { element, elementsAt, parsePomXml, text, type XmlElement } from './pom-xml.js';

export interface ArtifactLicense {
  license?: string;
  namedLicenses?: NamedLicense[];
}

/** `groupId:artifactId:version`. */
type Coordinate = string;

/** Where a POM lies in a Maven repository, relative to its root. */
export function pomPath(coordinate: Coordinate): string {
  const [g, a, v] = coordinate.split(':') as [string, string, string];
  return repositoryFile(g, a, v, 'pom');
}

/** What one POM says: its licenses, or the parent to ask. */
export function pomLicenses(project: XmlElement): ArtifactLicense | { parent: Coordinate } | undefined {
  const entries = elementsAt(project, ['licenses', 'license']).map((l) => ({ name: text(l, 'name'), url: text(l, 'url') }));
  const found = mavenLicense(entries);
  if (found.license || found.namedLicenses) return found;
  const parent = element(project, 'parent');
  const coordinate = parent && [text(parent, 'groupId'), text(parent, 'artifactId'), text(parent, 'version')];
  return coordinate?.every(Boolean) ? { parent: coordinate.join(':') } : undefined;
}

/**
 * The license of each artifact (by coordinate) whose POM chain names one, reading the POMs `read` returns (text by
 * coordinate, absent when the repository lacks it) in rounds, one round per level of parents.
 */
export async function chainLicenses(artifacts: readonly Coordinate[], read: (coordinates: Coordinate[]) => Promise<Map<Coordinate, string>>): Promise<Map<Coordinate, ArtifactLicense>> {
  const poms = new Map<Coordinate, ReturnType<typeof pomLicenses> | null>();
  const out = new Map<Coordinate, ArtifactLicense>();
  const at = new Map(artifacts.map((a) => [a, a]));
  for (let depth = 0; at.size && depth < 16; depth++) {
    const wanted = [...new Set(at.values())].filter((c) => !poms.has(c));
    for (const [c, xml] of await read(wanted)) {
      try {
        poms.set(c, pomLicenses(parsePomXml(xml, pomPath(c))));
      } catch {
        poms.set(c, null);
      }
    }
    for (const [artifact, c] of at) {
      const said = poms.get(c);
      if (said && 'parent' in said) at.set(artifact, said.parent);
      else {
        if (said) out.set(artifact, said);
        at.delete(artifact);
      }
    }
  }
  return out;
}

/** Reads POMs from the sandbox's local repository, NUL-separated (no POM holds a NUL). */
export function sandboxPomReader(ctx: AuditContext, repository: string): (coordinates: Coordinate[]) => Promise<Map<Coordinate, string>> {
  return async (coordinates) => {
    const out = new Map<Coordinate, string>();
    if (!coordinates.length) return out;
    const script = 'for f in "$@"; do if [ -f "$f" ]; then printf "%s\\0" "$f"; cat "$f"; printf "\\0"; fi; done';
    const paths = new Map(coordinates.map((c) => [pomPath(c), c]));
    const r = await ctx.sandbox.exec({ argv: ['sh', '-c', script, 'sh', ...paths.keys()], cwd: repository, timeoutMs: 60_000, network: false, maxOutputBytes: 256 * 1024 * 1024 });
    const parts = r.stdout.split('\0');
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const c = paths.get(parts[i]!);
      if (c) out.set(c, parts[i + 1]!);
    }
    return out;
  };
}
