/**
 * The rules the audit's findings are reported under (SARIF `ruleId`, annotation titles, the Markdown table), one per
 * kind of finding, phantoms split by whether the code imports them (or a tool loads them by discovery). docs/sarif.md lists them.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuditReport, Finding } from '../audit/report.js';

export interface FindingRule {
  id: string;
  title: string;
  description: string;
  help: string;
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
    title: 'Phantom dependency, imported on a path not traced',
    description: 'Declared and imported by the code, but the traced run did not take the path that loads it.',
    help: 'Trace the entry points that reach it (`--run`, or `run` in the configuration); keep the declaration.',
  },
  'phantom-discovered': {
    id: 'phantom-discovered',
    title: 'Phantom dependency, loaded by discovery',
    description: 'Declared, not imported by the code, but loaded by name by a tool or a registry (a plug-in named in configuration); the traced run did not use it.',
    help: 'Keep the declaration; trace the tool that loads it to see it used.',
  },
  phantom: {
    id: 'phantom',
    title: 'Phantom dependency',
    description: 'Declared in the manifest but never loaded by the traced run (the ecosystem reads no static imports).',
    help: 'Remove it if nothing needs it, or trace the entry point that does.',
  },
  hidden: {
    id: 'hidden',
    title: 'Hidden dependency',
    description: 'Loaded by the program at run time but not declared in the manifest: it is there only because something else pulled it in.',
    help: 'Declare it at the version that was loaded (`envproof fix`).',
  },
  unpinned: {
    id: 'unpinned',
    title: 'Unpinned dependency',
    description: 'Declared without one exact version, so a fresh install may get another one.',
    help: 'Pin it to the installed version (`envproof fix --pin`).',
  },
} as const satisfies Record<string, FindingRule>;

/** Findings the code-scanning outputs report: the ones about the manifest. Bloat and transitive stay in JSON/text. */
export function reportedFindings(report: AuditReport): Finding[] {
  return report.findings.filter((f) => f.kind === 'phantom' || f.kind === 'hidden' || f.kind === 'unpinned');
}

export function ruleOf(f: Finding): FindingRule {
  if (f.kind === 'phantom') return f.phantom ? FINDING_RULES[`phantom-${f.phantom}`] : FINDING_RULES.phantom;
  if (f.kind === 'hidden') return FINDING_RULES.hidden;
  return FINDING_RULES.unpinned;
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
