import type { Dependency } from '../../core/types.js';

export interface ListedArtifact {
  groupId: string;
  artifactId: string;
  type: string;
  classifier?: string;
  version: string;
  scope: string;
  optional: boolean;
}

// groupId:artifactId:type[:classifier]:version:scope, then optionally " (optional)" and " -- module name".
const ARTIFACT_LINE = /^\s*([^\s:]+):([^\s:]+):([^\s:]+)(?::([^\s:]+))?:([^\s:]+):([a-z]+)(\s+\(optional\))?(?:\s|$)/;

/** Parses the file written by `dependency:list -DoutputFile=...`; headers, blank lines and `none` are not artifacts. */
export function parseDependencyList(text: string): ListedArtifact[] {
  const artifacts: ListedArtifact[] = [];
  for (const line of text.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
    const m = ARTIFACT_LINE.exec(line);
    if (!m) continue;
    const [, groupId = '', artifactId = '', type = '', classifier, version = '', scope = '', optional] = m;
    artifacts.push({ groupId, artifactId, type, ...(classifier ? { classifier } : {}), version, scope, optional: Boolean(optional) });
  }
  return artifacts;
}

/** D2: everything Maven resolved except test scope, once each (a reactor lists per module); artifactId names. */
export function installedLayer(artifacts: readonly ListedArtifact[]): Dependency[] {
  const layer = new Map<string, Dependency>();
  for (const a of artifacts) {
    const key = `${a.groupId}:${a.artifactId}:${a.version}`;
    if (a.scope === 'test' || layer.has(key)) continue;
    layer.set(key, { name: a.artifactId, id: `${a.groupId}:${a.artifactId}`, version: a.version, source: `scope ${a.scope}` });
  }
  return [...layer.values()];
}

/**
 * The version Maven resolved a declaration to: the artifact of its groupId:artifactId (an artifactId alone may
 * name artifacts of other groups); undefined when the reactor's modules resolved it to several versions.
 */
export function resolvedArtifactVersion(dep: Dependency, installed: readonly Dependency[]): string | undefined {
  const versions = new Set(installed.filter((d) => d.id === dep.id && d.version).map((d) => d.version!));
  return versions.size === 1 ? [...versions][0] : undefined;
}
