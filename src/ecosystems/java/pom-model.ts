import path from 'node:path';
import { element, elements, elementsAt, lineOf, parsePomXml, text, type XmlElement } from './pom-xml.js';
import { isFile } from '../../core/fs.js';
import { readProjectFile } from '../../core/safe-read.js';
import { repositoryFile } from './repository-layout.js';

/** A POM file and, when it could be found, the POM it inherits from. */
export interface LoadedPom {
  file: string;
  project: XmlElement;
  parent?: LoadedPom;
}

/** A <dependency> element as written, before interpolation. */
export interface RawDependency {
  groupId?: string;
  artifactId?: string;
  version?: string;
  scope?: string;
  type?: string;
  classifier?: string;
  optional?: string;
  file: string;
  line?: number;
}

export interface Interpolated {
  value: string;
  /** Why some `${...}` could not be replaced (undefined property, cycle); empty when all were. */
  problems: string[];
}

export interface ManagedVersion {
  version?: string;
  scope?: string;
  /** The POM file or the imported BOM's coordinates that manage it. */
  from: string;
}

/** Where parents and BOMs that are not in the project tree may be found: Maven repository layouts on disk. */
export interface PomLookup {
  repositories: readonly string[];
  notes: string[];
  /**
   * Gets a POM that none of `repositories` holds into one of them (through Maven, from the registry), so that D1
   * does not depend on what earlier runs happened to cache. Resolves to undefined when it did, else to why not.
   */
  fetch?: (groupId: string, artifactId: string, version: string) => Promise<string | undefined>;
}

/** A POM, which must resolve inside its own directory: a `pom.xml` or `../pom.xml` that is a link elsewhere is refused. */
async function readPom(file: string): Promise<XmlElement> {
  return parsePomXml(await readProjectFile(path.dirname(file), file, 'utf8'), file);
}

export function dependencyEntries(container: XmlElement | undefined, file: string): RawDependency[] {
  return elementsAt(container, ['dependencies', 'dependency']).map((d) => ({
    groupId: text(d, 'groupId'),
    artifactId: text(d, 'artifactId'),
    version: text(d, 'version'),
    scope: text(d, 'scope'),
    type: text(d, 'type'),
    classifier: text(d, 'classifier'),
    optional: text(d, 'optional'),
    file,
    line: lineOf(d),
  }));
}

function repositoryPath(repo: string, groupId: string, artifactId: string, version: string): string {
  return path.join(repo, repositoryFile(groupId, artifactId, version, 'pom'));
}

async function findInRepositories(lookup: PomLookup, g: string, a: string, v: string): Promise<string | undefined> {
  for (const repo of lookup.repositories) {
    const candidate = repositoryPath(repo, g, a, v);
    if (await isFile(candidate)) return candidate;
  }
  return undefined;
}

/** The POM of g:a:v from the local repositories, fetched first when they lack it and the lookup can fetch; else why it is missing. */
async function repositoryPom(lookup: PomLookup, g: string, a: string, v: string): Promise<{ file: string } | { missing: string }> {
  const cached = await findInRepositories(lookup, g, a, v);
  if (cached) return { file: cached };
  if (!lookup.fetch) return { missing: 'not in the local Maven cache' };
  const failure = await lookup.fetch(g, a, v);
  const fetched = failure === undefined ? await findInRepositories(lookup, g, a, v) : undefined;
  return fetched ? { file: fetched } : { missing: `not in the local Maven cache, and Maven could not fetch it from the repository (${failure ?? 'it did not arrive in the cache'})` };
}

/** The groupId a POM declares or inherits from its <parent> element. */
function ownGroupId(project: XmlElement): string | undefined {
  return text(project, 'groupId') ?? text(element(project, 'parent'), 'groupId');
}

/** Where the <parent> is: in the tree (relativePath, default ../pom.xml, checked to be that parent), else a local repository. */
async function locateParent(file: string, parentRef: XmlElement, lookup: PomLookup): Promise<string | undefined> {
  const g = text(parentRef, 'groupId') ?? '';
  const a = text(parentRef, 'artifactId') ?? '';
  const v = text(parentRef, 'version') ?? '';
  const relative = text(parentRef, 'relativePath') ?? '../pom.xml';
  if (relative !== '') {
    let candidate = path.resolve(path.dirname(file), relative);
    if (!candidate.endsWith('.xml')) candidate = path.join(candidate, 'pom.xml');
    if (await isFile(candidate)) {
      const project = await readPom(candidate);
      if (text(project, 'artifactId') === a && ownGroupId(project) === g) return candidate;
      lookup.notes.push(`${file}: ${relative} is not the parent ${g}:${a} (it is ${ownGroupId(project)}:${text(project, 'artifactId')})`);
    }
  }
  const found = await repositoryPom(lookup, g, a, v);
  if ('file' in found) return found.file;
  lookup.notes.push(`${file}: parent ${g}:${a}:${v} is neither in the project tree nor ${found.missing.replace(/^not /, '')}: properties and versions it defines are unknown`);
  return undefined;
}

/** Loads a POM and its chain of parents, as far as they can be found. */
export async function loadPom(file: string, lookup: PomLookup, visiting: ReadonlySet<string> = new Set()): Promise<LoadedPom> {
  const project = await readPom(file);
  const loaded: LoadedPom = { file, project };
  const parentRef = element(project, 'parent');
  if (!parentRef) return loaded;
  const parentFile = await locateParent(file, parentRef, lookup);
  if (parentFile === undefined) return loaded;
  if (visiting.has(parentFile) || parentFile === file) {
    lookup.notes.push(`${file}: the chain of <parent> POMs loops back to ${parentFile}; stopped there`);
    return loaded;
  }
  loaded.parent = await loadPom(parentFile, lookup, new Set([...visiting, file]));
  return loaded;
}

/** The inheritance chain, the POM itself first. */
export function chainOf(pom: LoadedPom): LoadedPom[] {
  const chain: LoadedPom[] = [];
  for (let p: LoadedPom | undefined = pom; p; p = p.parent) chain.push(p);
  return chain;
}

const PROPERTY_REF = /\$\{([^}]*)\}/g;

/**
 * The effective values of one POM: its properties merged over its parents', `project.*` values (own or
 * inherited), interpolation with cycle detection, and managed versions (including imported BOMs).
 */
export class PomModel {
  readonly chain: LoadedPom[];
  private readonly properties = new Map<string, string>();

  constructor(readonly pom: LoadedPom) {
    this.chain = chainOf(pom);
    for (const p of [...this.chain].reverse()) {
      for (const props of elements(p.project, 'properties')) {
        for (const [name, values] of Object.entries(props)) {
          const v = values[0];
          this.properties.set(name, typeof v === 'string' ? v : '');
        }
      }
    }
  }

  /** The raw (not yet interpolated) value of a property, or undefined. Never reads the user's environment. */
  private raw(name: string): string | undefined {
    if (this.properties.has(name)) return this.properties.get(name);
    const projectPath = /^(?:project|pom)\.(.+)$/.exec(name)?.[1];
    if (projectPath === undefined) return name === 'basedir' ? path.dirname(this.pom.file) : undefined;
    if (projectPath === 'basedir') return path.dirname(this.pom.file);
    const parts = projectPath.split('.');
    // Inherited values: the nearest POM in the chain that sets the element.
    for (const p of this.chain) {
      const parentRef = element(p.project, 'parent');
      if (parts.length === 1 && (parts[0] === 'groupId' || parts[0] === 'version')) {
        const own = text(p.project, parts[0]) ?? text(parentRef, parts[0]);
        if (own !== undefined) return own;
        continue;
      }
      const holder = elementsAt(p.project, parts.slice(0, -1))[0];
      const value = text(holder, parts.at(-1)!);
      if (value !== undefined) return value;
      if (parts[0] === 'artifactId' || parts[0] === 'parent') return undefined;
    }
    return undefined;
  }

  interpolate(value: string): Interpolated {
    const problems: string[] = [];
    const resolve = (input: string, stack: readonly string[]): string =>
      input.replace(PROPERTY_REF, (whole, name: string) => {
        if (stack.includes(name)) {
          problems.push(`\${${name}} refers to itself (${[...stack.slice(stack.indexOf(name)), name].join(' → ')})`);
          return whole;
        }
        const raw = this.raw(name);
        if (raw === undefined) {
          problems.push(`\${${name}} is not defined`);
          return whole;
        }
        return resolve(raw, [...stack, name]);
      });
    const result = resolve(value, []);
    return { value: result, problems: [...new Set(problems)] };
  }

  /** An optional element text, interpolated; problems are appended to `problems`. */
  value(raw: string | undefined, problems: string[]): string | undefined {
    if (raw === undefined) return undefined;
    const r = this.interpolate(raw);
    problems.push(...r.problems);
    return r.value;
  }
}

export function managementKey(groupId: string, artifactId: string): string {
  return `${groupId}:${artifactId}`;
}

/**
 * Managed versions for `model`: entries written in its chain (nearer POMs win), then entries of imported BOMs in
 * declaration order (the first import wins). BOMs are looked up in the local repositories, fetched when the lookup can.
 */
export async function managedVersions(
  model: PomModel,
  lookup: PomLookup,
  importing: ReadonlySet<string> = new Set(),
): Promise<Map<string, ManagedVersion>> {
  const managed = new Map<string, ManagedVersion>();
  const imports: { g: string; a: string; v: string; file: string }[] = [];
  for (const p of model.chain) {
    for (const d of dependencyEntries(element(p.project, 'dependencyManagement'), p.file)) {
      const problems: string[] = [];
      const g = model.value(d.groupId, problems);
      const a = model.value(d.artifactId, problems);
      const v = model.value(d.version, problems);
      if (!g || !a) continue;
      if (model.value(d.scope, problems) === 'import') {
        if (v && problems.length === 0) imports.push({ g, a, v, file: p.file });
        else lookup.notes.push(`${p.file}: imported BOM ${g}:${a} has no usable version (${problems.join('; ')})`);
        continue;
      }
      const key = managementKey(g, a);
      if (!managed.has(key)) {
        managed.set(key, {
          ...(v !== undefined && problems.length === 0 ? { version: v } : {}),
          ...(d.scope !== undefined ? { scope: model.value(d.scope, []) } : {}),
          from: p.file,
        });
      }
    }
  }
  for (const imp of imports) {
    const coordinates = `${imp.g}:${imp.a}:${imp.v}`;
    if (importing.has(coordinates)) continue;
    const bomPom = await repositoryPom(lookup, imp.g, imp.a, imp.v);
    if ('missing' in bomPom) {
      lookup.notes.push(`${imp.file}: imported BOM ${coordinates} is ${bomPom.missing}: versions it manages are unknown`);
      continue;
    }
    const bom = new PomModel(await loadPom(bomPom.file, lookup));
    const fromBom = await managedVersions(bom, lookup, new Set([...importing, coordinates]));
    for (const [key, entry] of fromBom) {
      if (!managed.has(key)) managed.set(key, { ...entry, from: `BOM ${coordinates}` });
    }
  }
  return managed;
}
