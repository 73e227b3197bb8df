/**
 * The audit's components: every installed (D2) or loaded (D3) package once, with what the ecosystem knows about it
 * (package URL, hashes, dependency graph) and the traced files that show it loaded. The SBOM is written from these.
 */
import { PackageURL } from 'packageurl-js';
import { nameSet } from '../core/names.js';
import type { Dependency } from '../core/types.js';
import { componentKey, type ComponentFact, type ComponentFacts, type PurlParts } from '../ecosystems/outputs.js';
import type { TracedDependency } from '../ecosystems/types.js';
import type { ComponentEntry } from './report.js';

export interface ComponentInput {
  declared: readonly Dependency[];
  installed: readonly Dependency[];
  traced: readonly TracedDependency[];
  facts?: ComponentFacts;
  /** How a traced file is written in the report (relative to the project, or to the environment). */
  showPath(file: string): string;
}

export function purlString(p: PurlParts): string {
  return new PackageURL(p.type, p.namespace, p.name, p.version, p.qualifiers, undefined).toString();
}

/** Finds an entry by key, else by name when only one entry has that name (a layer may report another version form). */
class ByKey<T extends { name: string; version?: string }> {
  private readonly keys = new Map<string, T>();
  private readonly names = new Map<string, T[]>();
  constructor(items: readonly T[]) {
    for (const item of items) {
      this.keys.set(componentKey(item), item);
      this.names.set(item.name, [...(this.names.get(item.name) ?? []), item]);
    }
  }
  find(d: { name: string; version?: string }): T | undefined {
    const same = this.names.get(d.name);
    return this.keys.get(componentKey(d)) ?? (same?.length === 1 ? same[0] : undefined);
  }
}

function entryOf(dep: Dependency, fact: ComponentFact | undefined, declared: Set<string>, direct: Set<string> | undefined): ComponentEntry {
  return {
    name: dep.name,
    ...(dep.version ? { version: dep.version } : {}),
    ...(dep.id ? { id: dep.id } : {}),
    ...(fact?.purl ? { purl: purlString(fact.purl) } : {}),
    hashes: fact?.hashes ?? [],
    ...(fact?.hashSource ? { hashSource: fact.hashSource } : {}),
    ...(fact?.license ? { license: fact.license } : {}),
    ...(fact?.namedLicenses ? { namedLicenses: fact.namedLicenses } : {}),
    ...(fact?.properties ? { properties: fact.properties } : {}),
    dependsOn: fact?.dependsOn ?? [],
    direct: direct ? direct.has(componentKey(dep)) : declared.has(dep.name),
    declared: declared.has(dep.name),
    installed: false,
    loaded: false,
    files: [],
  };
}

/** D2 ∪ D3, one entry per installed package; a loaded package matches the installed one of the same key (or name). */
export function buildComponents(input: ComponentInput): ComponentEntry[] {
  const declared = nameSet(input.declared);
  const facts = new ByKey(input.facts?.components ?? []);
  const direct = input.facts?.direct && new Set(input.facts.direct);
  const entries: ComponentEntry[] = [];
  for (const dep of input.installed) {
    if (entries.some((e) => componentKey(e) === componentKey(dep))) continue;
    entries.push({ ...entryOf(dep, facts.find(dep), declared, direct), installed: true });
  }
  const installed = new ByKey(entries);
  for (const dep of input.traced) {
    let entry = installed.find(dep);
    if (!entry) {
      entry = entryOf(dep, facts.find(dep), declared, direct);
      entries.push(entry);
    }
    entry.loaded = true;
    for (const file of dep.files ?? []) {
      const shown = input.showPath(file);
      if (!entry.files.includes(shown)) entry.files.push(shown);
    }
  }
  for (const e of entries) e.files.sort();
  const known = new Set(entries.map(componentKey));
  for (const e of entries) e.dependsOn = e.dependsOn.filter((k) => known.has(k));
  return entries.sort((a, b) => a.name.localeCompare(b.name) || (a.version ?? '').localeCompare(b.version ?? ''));
}

/** A traced path as the report shows it: inside the project, relative; inside the environment, `$ENVPROOF_ENV/…`. */
export function pathShower(projectDir: string, envDir: string): (file: string) => string {
  return (file) => {
    if (file.startsWith(`${projectDir}/`)) return file.slice(projectDir.length + 1);
    if (file.startsWith(`${envDir}/`)) return `$ENVPROOF_ENV/${file.slice(envDir.length + 1)}`;
    return file;
  };
}
