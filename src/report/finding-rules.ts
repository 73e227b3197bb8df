/**
 * The rules the audit's findings are reported under (SARIF `ruleId`, annotation titles, the Markdown table), one per
 * kind of finding, phantoms split by whether the code imports them (or a tool loads them by discovery) and hidden
 * dependencies by whether the code imports them. docs/sarif.md lists them, each under its own heading (the rule's
 * `helpUri`).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { failOnKind } from '../audit/findings.js';
import type { AuditReport, Finding } from '../audit/report.js';
import { docsUrl } from './docs-url.js';

export interface FindingRule {
  id: string;
  title: string;
  description: string;
  help: string;
}

/** The rule's section of docs/sarif.md. */
export function ruleHelpUri(rule: FindingRule): string {
  return docsUrl('sarif.md', `rule-${rule.id}`);
}

export const FINDING_RULES = {
  'phantom-unused': {
    id: 'phantom-unused',
    title: 'Phantom dependency, unused',
    description: 'Declared in the manifest, never loaded by the traced run, and not imported anywhere in the code.',
    help: 'Remove it from the manifest (`envproof fix --remove-phantom`).',
  },
  'phantom-not-traced': {
    id: 'phantom-not-traced',
    title: 'Phantom dependency, used on a path not traced',
    description: 'Declared and imported by the code, but the traced run did not take the path that loads it.',
    help: 'Trace the entry points that reach it (`--run`, or `run` in the configuration); keep the declaration.',
  },
  'phantom-discovered': {
    id: 'phantom-discovered',
    title: 'Phantom dependency, loaded by discovery',
    description: 'Declared, not imported by the code, but loaded by name by a tool or a registry (a plug-in named in configuration, a Java service provider or logging binding, a Python entry point, a module run with python -m); the traced run did not use it.',
    help: 'Keep the declaration; trace the tool that loads it to see it used.',
  },
  phantom: {
    id: 'phantom',
    title: 'Phantom dependency',
    description: 'Declared in the manifest but never loaded by the traced run (the ecosystem reads no static imports).',
    help: 'Remove it if nothing needs it, or trace the entry point that does.',
  },
  'hidden-direct': {
    id: 'hidden-direct',
    title: 'Hidden dependency, imported by the code',
    description: 'Loaded at run time and imported by the project\'s own code, but not declared: it is there only because another package brings it (deptry DEP003, knip "unlisted").',
    help: 'Declare it at the version that was loaded (`envproof fix`).',
  },
  'hidden-transitive': {
    id: 'hidden-transitive',
    title: 'Hidden dependency, loaded through other packages',
    description: 'Loaded at run time, not declared, and not imported by the project\'s code: another package loads it (the chain is in `via`).',
    help: 'Nothing to do unless the code comes to import it; then declare it.',
  },
  hidden: {
    id: 'hidden',
    title: 'Hidden dependency',
    description: 'Loaded by the program at run time but not declared in the manifest (the ecosystem read no static imports).',
    help: 'Declare it at the version that was loaded (`envproof fix`).',
  },
  missing: {
    id: 'missing',
    title: 'Missing dependency',
    description: 'Imported by the project\'s code, but no installed package provides it (deptry DEP001, knip "unlisted"/"unresolved").',
    help: 'Declare the package that provides the module.',
  },
  unpinned: {
    id: 'unpinned',
    title: 'Unpinned dependency',
    description: 'Declared without one exact version, so a fresh install may get another one.',
    help: 'Pin it to the installed version (`envproof fix --pin`).',
  },
} as const satisfies Record<string, FindingRule>;

/** Findings the code-scanning outputs report: the ones about the manifest and the imports. Bloat and transitive stay in JSON/text. */
export function reportedFindings(report: AuditReport): Finding[] {
  return report.findings.filter((f) => f.kind === 'phantom' || f.kind === 'hidden' || f.kind === 'missing' || f.kind === 'unpinned');
}

export function ruleOf(f: Finding): FindingRule {
  if (f.kind === 'phantom') return f.phantom ? FINDING_RULES[`phantom-${f.phantom}`] : FINDING_RULES.phantom;
  if (f.kind === 'hidden') return f.hidden ? FINDING_RULES[`hidden-${f.hidden}`] : FINDING_RULES.hidden;
  if (f.kind === 'missing') return FINDING_RULES.missing;
  return FINDING_RULES.unpinned;
}

/**
 * `error` for what `--fail-on` counts, `note` for information (a hidden dependency only other packages load, a
 * missing module only development code imports) unless --fail-on counts it, else `warning`.
 */
export function findingLevel(f: Finding, failOn: readonly string[]): 'error' | 'warning' | 'note' {
  const kind = failOnKind(f);
  if (kind && failOn.includes(kind)) return 'error';
  return kind === 'hidden-transitive' || kind === undefined ? 'note' : 'warning';
}

export function findingMessage(f: Finding): string {
  return `${f.name}${f.version ? ` ${f.version}` : ''}: ${f.advice}`;
}

/**
 * A manifest path as the CI sees it: relative to `baseDir` (the working directory, normally the repository root)
 * when the project lies inside it, else an absolute file URL.
 */
export function manifestPath(report: AuditReport, file: string, baseDir: string): { path: string; uri: string; relative: boolean } {
  const absolute = path.resolve(report.project, file);
  const rel = path.relative(baseDir, absolute);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
    const parts = rel.split(path.sep);
    return { path: parts.join('/'), uri: parts.map(encodeURIComponent).join('/'), relative: true };
  }
  return { path: absolute, uri: pathToFileURL(absolute).href, relative: false };
}
