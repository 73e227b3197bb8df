/**
 * What `envproof fix` asks of the manifest, from an audit's findings: declare every hidden dependency the code
 * imports (or every one, when the ecosystem read no imports) at the version that was loaded; with --pin, pin every
 * unpinned one to the version its declaration resolved to; with --remove-phantom, remove the phantoms nothing uses.
 * Kept: a phantom the code imports on an untraced path or that a tool loads by discovery (it is needed), one only
 * development code imports (it belongs to the development dependencies), and a hidden one only other packages load.
 */
import type { AuditReport, Finding } from '../audit/report.js';
import type { DeclaredResult } from '../core/types.js';
import type { ManifestEdit } from '../ecosystems/outputs.js';

export interface FixFlags {
  pin: boolean;
  removePhantom: boolean;
}

export interface FixPlan {
  edits: ManifestEdit[];
  /** Findings fix leaves alone, with why. */
  kept: { name: string; kind: string; reason: string }[];
}

/** Where the code imports a kept phantom, and the advice, saying the import sites once when the advice names them. */
function importedReason(f: Finding): string {
  const sites = f.importedAt ?? [];
  if (sites[0] && f.advice.includes(sites[0])) return f.advice;
  return `the code imports it${sites.length ? ` (${sites.slice(0, 3).join(', ')})` : ''}: ${f.advice}`;
}

/** Nothing uses it: no import outside development code, no discovery. */
function removable(f: Finding): boolean {
  return f.kind === 'phantom' && !f.ignored && f.phantom !== 'not-traced' && !f.discovery && !f.developmentImports;
}

export function planFix(report: AuditReport, declared: DeclaredResult, flags: FixFlags): FixPlan {
  const plan: FixPlan = { edits: [], kept: [] };
  const keep = (name: string, kind: string, reason: string) => plan.kept.push({ name, kind, reason });
  const declaredEntry = (name: string) => declared.declared.find((d) => d.name === name);
  const identity = (name: string, version: string | undefined) =>
    report.layers.installed.find((d) => d.name === name && d.version === version)?.id ??
    report.layers.traced?.find((d) => d.name === name && d.version === version)?.id;
  const removed = new Set(
    flags.removePhantom ? report.findings.filter(removable).map((f) => f.name) : [],
  );
  for (const f of report.findings) {
    if (f.ignored) {
      if (['hidden', 'unpinned', 'phantom'].includes(f.kind)) keep(f.name, f.kind, 'ignored by the configuration');
      continue;
    }
    if (f.kind === 'hidden' && f.hidden === 'transitive') keep(f.name, f.kind, f.advice);
    else if (f.kind === 'hidden') {
      if (!f.version) keep(f.name, f.kind, 'no installed version is known to declare');
      else {
        const id = identity(f.name, f.version);
        plan.edits.push({ kind: 'add', name: f.name, version: f.version, ...(id ? { id } : {}) });
      }
    } else if (f.kind === 'unpinned' && flags.pin && !removed.has(f.name)) {
      const dependency = declaredEntry(f.name);
      if (!f.version) keep(f.name, f.kind, 'the package manager reported no installed version to pin it to');
      else if (dependency) plan.edits.push({ kind: 'pin', dependency, version: f.version });
    } else if (f.kind === 'phantom' && flags.removePhantom) {
      const dependency = declaredEntry(f.name);
      if (f.discovery || f.developmentImports) keep(f.name, f.kind, f.advice);
      else if (f.phantom === 'not-traced') keep(f.name, f.kind, importedReason(f));
      else if (dependency) plan.edits.push({ kind: 'remove', dependency });
    }
  }
  return plan;
}
