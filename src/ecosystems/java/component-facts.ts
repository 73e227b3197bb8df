/**
 * SBOM facts of a Maven project: the SHA-1 Maven stored beside each artifact in its local repository (the `.sha1`
 * file it downloaded with the artifact from the repository), and the dependency graph of `dependency:tree`
 * (offline, after the install resolved everything), and each artifact's license from its POM chain (licenses.ts).
 */
import path from 'node:path';
import { componentKey, type ComponentFact, type ComponentFacts } from '../outputs.js';
import type { AuditContext, InstallResult } from '../types.js';
import type { ListedArtifact } from './dependency-list.js';
import { javaLayout } from './layout.js';
import type { MavenInstallDetails } from './index.js';
import { DEPENDENCY_PLUGIN, runMaven } from './maven.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';
import { chainLicenses, sandboxPomReader } from './licenses.js';
import { repositoryFile } from './repository-layout.js';

/** Where an artifact lies in a Maven repository, relative to its root. */
export function repositoryPath(a: ListedArtifact): string {
  return repositoryFile(a.groupId, a.artifactId, a.version, a.type === 'test-jar' ? 'jar' : a.type, a.classifier);
}

/** The local repository the sandbox's Maven uses (MAVEN_OPTS' maven.repo.local), as seen inside. */
async function localRepository(ctx: AuditContext): Promise<string | undefined> {
  const r = await ctx.sandbox.exec({ argv: ['sh', '-c', 'printf %s "$MAVEN_OPTS"'], cwd: ctx.envDir, timeoutMs: 30_000, network: false });
  return /-Dmaven\.repo\.local=(\S+)/.exec(r.stdout)?.[1];
}

/** `relative path → first 40 hex digits` of each `.sha1` file, read inside the sandbox (the repository may be a layer only it sees). */
async function sha1Files(ctx: AuditContext, repository: string, files: readonly string[]): Promise<Map<string, string>> {
  const script = 'for f in "$@"; do printf "%s\\t" "$f"; head -c 200 "$f.sha1" 2>/dev/null | tr -d "\\r\\n"; echo; done';
  const r = await ctx.sandbox.exec({ argv: ['sh', '-c', script, 'sh', ...files], cwd: repository, timeoutMs: 60_000, network: false });
  const out = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const [file, content] = line.split('\t');
    const hex = content && /^([0-9a-f]{40})\b/i.exec(content.trim())?.[1];
    if (file && hex) out.set(file, hex.toLowerCase());
  }
  return out;
}

/** The edges of a TGF dependency tree: node lines `id coordinate`, `#`, then `from to scope`. */
export function parseTgf(text: string): { root?: string; nodes: Map<string, string>; edges: [string, string][] } {
  const nodes = new Map<string, string>();
  const edges: [string, string][] = [];
  let root: string | undefined;
  let inEdges = false;
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    if (line === '#') inEdges = true;
    else if (!inEdges) {
      const [id, coordinate] = line.split(/\s+/);
      if (id && coordinate) (nodes.set(id, coordinate), (root ??= id));
    } else {
      const [from, to] = line.split(/\s+/);
      if (from && to) edges.push([from, to]);
    }
  }
  return { ...(root ? { root } : {}), nodes, edges };
}

/** `groupId:artifactId:type[:classifier]:version[:scope]` → the layers' key (artifactId@version). */
function keyOfCoordinate(coordinate: string): string {
  const parts = coordinate.split(':');
  const hasScope = parts.length >= 5 && /^(compile|runtime|provided|system|test|import)$/.test(parts.at(-1)!);
  const version = parts[hasScope ? parts.length - 2 : parts.length - 1]!;
  return componentKey({ name: parts[1]!, version });
}

async function dependencyTree(ctx: AuditContext): Promise<ReturnType<typeof parseTgf> | undefined> {
  const file = path.posix.join(javaLayout(ctx).root, 'dependency-tree.tgf');
  const r = await runMaven(ctx, { goals: [`${DEPENDENCY_PLUGIN}:tree`], properties: { outputType: 'tgf', outputFile: file }, offline: true }, false);
  const host = ctx.sandbox.toHost(file);
  if (r.exitCode !== 0 || !host) return undefined;
  return parseTgf((await readProjectFileIfExists(ctx.host.envDir, host)) ?? '');
}

export async function mavenComponentFacts(ctx: AuditContext, install: InstallResult<MavenInstallDetails>): Promise<ComponentFacts> {
  const artifacts = install.details.resolved.filter((a) => a.scope !== 'test');
  const notes: string[] = [];
  const repository = await localRepository(ctx);
  const sha1 = repository ? await sha1Files(ctx, repository, artifacts.map(repositoryPath)) : new Map<string, string>();
  if (!repository) notes.push('the local Maven repository is not known: no hashes');
  const coordinate = (a: ListedArtifact) => `${a.groupId}:${a.artifactId}:${a.version}`;
  const licenses = repository ? await chainLicenses([...new Set(artifacts.map(coordinate))], sandboxPomReader(ctx, repository)) : new Map();
  const tree = await dependencyTree(ctx);
  if (!tree) notes.push('mvn dependency:tree failed offline: no dependency graph');
  const dependsOn = new Map<string, string[]>();
  for (const [from, to] of tree?.edges ?? []) {
    const key = keyOfCoordinate(tree!.nodes.get(from) ?? '');
    dependsOn.set(key, [...(dependsOn.get(key) ?? []), keyOfCoordinate(tree!.nodes.get(to) ?? '')]);
  }
  const components: ComponentFact[] = [];
  for (const a of artifacts) {
    const hash = sha1.get(repositoryPath(a));
    const key = componentKey({ name: a.artifactId, version: a.version });
    if (components.some((c) => componentKey(c) === key)) continue;
    components.push({
      name: a.artifactId,
      version: a.version,
      purl: { type: 'maven', namespace: a.groupId, name: a.artifactId, version: a.version, ...(a.type !== 'jar' || a.classifier ? { qualifiers: { type: a.type, ...(a.classifier ? { classifier: a.classifier } : {}) } } : {}) },
      hashes: hash ? [{ algorithm: 'SHA-1', value: hash }] : [],
      ...(hash ? { hashSource: 'the .sha1 file in the local Maven repository' } : {}),
      ...licenses.get(coordinate(a)),
      dependsOn: dependsOn.get(key) ?? [],
    });
  }
  const unhashed = components.filter((c) => !c.hashes.length).map((c) => c.name);
  if (repository && unhashed.length) notes.push(`no .sha1 file in the local repository for ${unhashed.join(', ')}`);
  const root = tree?.root && keyOfCoordinate(tree.nodes.get(tree.root) ?? '');
  return { components, ...(root ? { direct: dependsOn.get(root) ?? [] } : {}), notes };
}
