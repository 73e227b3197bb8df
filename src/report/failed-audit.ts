/**
 * The report of an audit that failed (`audit --json` wrote it with an `error`): what was computed before the
 * failure (D1, D2 when the install got through, the entries not counted, notes) and the error, as text or markdown.
 */
import path from 'node:path';
import type { LayerEntry, PartialAudit } from '../audit/report.js';
import { mdCell } from './markdown.js';

export interface FailedAuditReport extends PartialAudit {
  schemaVersion: number;
  error: { message: string; hint?: string; step?: string; class?: string; output?: string };
}

const OUTPUT_LINES = 20;

function names(layer: readonly LayerEntry[]): string {
  return layer.length ? layer.map((e) => (e.version ? `${e.name} ${e.version}` : e.name)).join(', ') : '(none)';
}

function outputTail(output: string | undefined): string[] {
  return (output ?? '').trimEnd().split('\n').filter(Boolean).slice(-OUTPUT_LINES);
}

function computed(r: FailedAuditReport): [string, string][] {
  const rows: [string, string][] = [];
  if (r.layers) rows.push([`D1 declared (${r.layers.declared.length}${r.manifest ? `, ${r.manifest}` : ''})`, names(r.layers.declared)]);
  if (r.layers?.installed) rows.push([`D2 installed (${r.layers.installed.length})`, names(r.layers.installed)]);
  for (const [group, deps] of Object.entries(r.otherDeclared ?? {}).filter(([, v]) => v.length)) rows.push([`declared outside D1, ${group}`, names(deps)]);
  for (const s of r.skipped ?? []) rows.push(['not counted', `${s.raw} [${s.reason}${s.detail ? `: ${s.detail}` : ''}]${s.source ? ` at ${s.source}` : ''}`]);
  for (const n of r.notes ?? []) rows.push(['note', n]);
  return rows;
}

export function renderFailedAuditText(r: FailedAuditReport): string {
  const e = r.error;
  const out = [`envproof audit of ${r.project ?? '(unknown project)'}${r.ecosystem ? ` (${r.ecosystem})` : ''}: FAILED`];
  out.push(`  ${e.step ? `${e.step} failed${e.class ? ` (${e.class})` : ''}: ` : ''}${e.message}`);
  if (e.hint) out.push(`  hint: ${e.hint}`);
  const tail = outputTail(e.output);
  if (tail.length) out.push('', `Output of the failed step (last ${tail.length} lines)`, ...tail.map((l) => `  ${l}`));
  const rows = computed(r);
  if (rows.length) out.push('', 'Computed before the failure', ...rows.map(([k, v]) => `  ${k}: ${v}`));
  else out.push('', 'Nothing was computed before the failure.');
  return `${out.join('\n')}\n`;
}

export function renderFailedAuditMarkdown(r: FailedAuditReport): string {
  const e = r.error;
  const title = r.project ? `\`${path.basename(r.project)}\`${r.ecosystem ? ` (${r.ecosystem})` : ''}` : 'unknown project';
  const out = [`### envproof audit: ${title} — failed`, ''];
  out.push(`**${e.step ? `${e.step} failed${e.class ? ` (${e.class})` : ''}: ` : ''}${mdCell(e.message)}**`, '');
  if (e.hint) out.push(`Hint: ${mdCell(e.hint)}`, '');
  const tail = outputTail(e.output);
  if (tail.length) out.push('```', ...tail.map((l) => l.replace(/```/g, "'''")), '```', '');
  const rows = computed(r);
  if (rows.length) {
    out.push('| computed before the failure | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${mdCell(k)} | ${mdCell(v)} |`), '');
  }
  return out.join('\n');
}
