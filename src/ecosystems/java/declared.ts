import { access } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import type { DeclaredResult, Dependency } from '../../core/types.js';
import { mavenRepositories } from './maven-cache.js';
import {
  dependencyEntries,
  loadPom,
  managedVersions,
  managementKey,
  PomModel,
  type ManagedVersion,
  type PomLookup,
  type RawDependency,
} from './pom-model.js';
import { element, elementsAt, parsePomXml, text, type XmlElement } from './pom-xml.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';

/** Scopes on the runtime classpath: these are D1. test, provided and system are reported apart. */
const D1_SCOPES = new Set(['compile', 'runtime']);

class DeclaredCollector {
  readonly result: DeclaredResult;
  constructor(
    private readonly projectDir: string,
    private readonly model: PomModel,
    private readonly managed: Map<string, ManagedVersion>,
    private readonly repositories: readonly string[],
    notes: string[],
  ) {
    this.result = { manifest: 'pom.xml', declared: [], other: {}, skipped: [], notes };
  }

  /** Relative to the project for files of the tree (an in-tree parent is `../pom.xml`), absolute for cached POMs. */
  private sourceOf(file: string): string {
    return this.repositories.some((r) => file.startsWith(r + path.sep)) ? file : path.relative(this.projectDir, file);
  }

  private addOther(group: string, dep: Dependency): void {
    (this.result.other[group] ??= []).push(dep);
  }

  /** Interpolates one <dependency>; returns it with its scope, or records why it was skipped. */
  resolve(raw: RawDependency): { dep: Dependency; scope: string; optional: boolean } | undefined {
    const source = `${this.sourceOf(raw.file)}${raw.line ? `:${raw.line}` : ''}`;
    const rawName = `${raw.groupId ?? '?'}:${raw.artifactId ?? '?'}`;
    const nameProblems: string[] = [];
    const g = this.model.value(raw.groupId, nameProblems);
    const a = this.model.value(raw.artifactId, nameProblems);
    if (nameProblems.length) {
      this.result.skipped.push({ raw: rawName, reason: 'unresolved-property', source, detail: nameProblems.join('; ') });
      return undefined;
    }
    if (!g || !a) {
      this.result.skipped.push({ raw: rawName, reason: 'invalid-name', source, detail: 'a <dependency> needs both groupId and artifactId' });
      return undefined;
    }
    const managed = this.managed.get(managementKey(g, a));
    const versionProblems: string[] = [];
    let version = this.model.value(raw.version, versionProblems);
    if (versionProblems.length) {
      this.result.notes.push(`${source}: version of ${g}:${a} unknown: ${versionProblems.join('; ')}`);
      version = undefined;
    } else if (version === undefined) {
      version = managed?.version;
      if (version === undefined) this.result.notes.push(`${source}: ${g}:${a} has no version and none is managed in the POMs envproof could read`);
    }
    const scope = this.model.value(raw.scope, []) || managed?.scope || 'compile';
    const optional = this.model.value(raw.optional, []) === 'true';
    const dep: Dependency = { name: a, id: `${g}:${a}`, ...(version ? { version } : {}), source };
    return { dep, scope, optional };
  }

  /** Dependencies of the POM and its parents (a child's entry replaces its parent's for the same groupId:artifactId). */
  collectMain(): void {
    const seen = new Set<string>();
    for (const pom of this.model.chain) {
      for (const raw of dependencyEntries(pom.project, pom.file)) {
        const r = this.resolve(raw);
        if (!r) continue;
        if (seen.has(r.dep.id!)) continue;
        seen.add(r.dep.id!);
        if (pom !== this.model.pom) this.result.notes.push(`${r.dep.id} is inherited from the parent POM ${r.dep.source}`);
        if (D1_SCOPES.has(r.scope)) {
          this.result.declared.push(r.dep);
          if (r.optional) this.addOther('optional', r.dep);
        } else {
          if (!['test', 'provided', 'system'].includes(r.scope)) this.result.notes.push(`${r.dep.source}: ${r.dep.id} has an unknown scope "${r.scope}"`);
          this.addOther(r.scope, r.dep);
        }
      }
    }
  }

  /** Profiles are reported per profile, never merged: which one is active depends on the build. */
  collectProfiles(): void {
    for (const profile of elementsAt(this.model.pom.project, ['profiles', 'profile'])) {
      const id = text(profile, 'id') || 'default';
      for (const raw of dependencyEntries(profile, this.model.pom.file)) {
        const r = this.resolve(raw);
        if (r) this.addOther(`profile:${id}`, r.dep);
      }
    }
  }

  /** Imported BOMs supply versions; they are listed, not declared. */
  collectImports(): void {
    for (const pom of this.model.chain) {
      for (const raw of dependencyEntries(element(pom.project, 'dependencyManagement'), pom.file)) {
        if (this.model.value(raw.scope, []) !== 'import') continue;
        const r = this.resolve({ ...raw, scope: undefined });
        if (r) this.addOther('bom-import', r.dep);
      }
    }
  }
}

/**
 * The project's own artifacts: the POM's artifactId and those of its reactor modules (`<modules>`, followed
 * through the tree). One module depending on another is the project using itself, not a dependency.
 */
async function ownArtifacts(model: PomModel, notes: string[]): Promise<string[]> {
  const own = new Set<string>();
  const visit = async (project: XmlElement, file: string, depth: number): Promise<void> => {
    const artifactId = text(project, 'artifactId');
    if (artifactId) own.add(artifactId);
    if (depth >= MAX_MODULE_DEPTH) return;
    for (const module of (element(project, 'modules')?.module ?? []).filter((m): m is string => typeof m === 'string' && m.trim() !== '')) {
      let moduleFile = path.resolve(path.dirname(file), module.trim());
      if (!moduleFile.endsWith('.xml')) moduleFile = path.join(moduleFile, 'pom.xml');
      if (!moduleFile.startsWith(path.dirname(model.pom.file) + path.sep)) continue; // outside the project: not audited
      const xml = await readProjectFileIfExists(path.dirname(model.pom.file), moduleFile);
      const child = xml === undefined ? undefined : await Promise.resolve().then(() => parsePomXml(xml, moduleFile)).catch(() => undefined);
      if (child) await visit(child, moduleFile, depth + 1);
      else notes.push(`${path.relative(path.dirname(model.pom.file), moduleFile)}: module "${module}" has no readable pom.xml`);
    }
  };
  await visit(model.pom.project, model.pom.file, 0);
  return [...own].sort();
}

const MAX_MODULE_DEPTH = 10;

export interface JavaDeclaredOptions {
  /** Fetches a parent or BOM POM that no local repository holds (see PomLookup.fetch). */
  fetch?: PomLookup['fetch'];
}

/** D1 of a Maven project: the compile- and runtime-scope <dependencies> of pom.xml, artifactId as the name. */
export async function extractJavaDeclared(projectDir: string, opts: JavaDeclaredOptions = {}): Promise<DeclaredResult> {
  const file = path.join(projectDir, 'pom.xml');
  await access(file).catch(() => {
    throw new EnvproofError(`no pom.xml in ${projectDir}`, 'a Maven project has a pom.xml at its root');
  });
  const lookup: PomLookup = { repositories: mavenRepositories(), notes: [], ...(opts.fetch ? { fetch: opts.fetch } : {}) };
  const model = new PomModel(await loadPom(file, lookup));
  const managed = await managedVersions(model, lookup);
  const collector = new DeclaredCollector(projectDir, model, managed, lookup.repositories, lookup.notes);
  if ((element(model.pom.project, 'modules')?.module ?? []).length > 0) {
    collector.result.notes.push('multi-module project (<modules>): D1 is the root POM only; its modules are not audited one by one');
  }
  collector.collectMain();
  collector.collectProfiles();
  collector.collectImports();
  collector.result.own = await ownArtifacts(model, collector.result.notes);
  return collector.result;
}
