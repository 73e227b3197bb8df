/** A pull-request comment for one audit: the findings with where they are and what to do, then the layers' counts. */
import path from 'node:path';
import type { AuditReport } from '../audit/report.js';
import { formatRate } from './audit-text.js';
import { mdCell } from './markdown.js';
import { reportedFindings, ruleOf } from './finding-rules.js';

export function renderAuditMarkdown(report: AuditReport): string {
  const findings = reportedFindings(report);
  const open = findings.filter((f) => !f.ignored);
  const row = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  const out = [`### envproof audit: \`${path.basename(report.project)}\` (${report.ecosystem}, ${report.manifest})`, ''];
  if (open.length === 0) out.push('No phantom, hidden, missing or unpinned dependencies.', '');
  else {
    out.push(`**${open.length} finding${open.length === 1 ? '' : 's'}**`, '');
    out.push(row(['finding', 'package', 'where', 'what to do']), row(['---', '---', '---', '---']));
    for (const f of open) {
      const where = f.location ? `${f.location.file}${f.location.line ? `:${f.location.line}` : ''}` : '';
      out.push(row([ruleOf(f).title, `\`${f.name}\`${f.version ? ` ${f.version}` : ''}`, where ? `\`${where}\`` : '', f.advice]));
    }
    out.push('');
  }
  const ignored = findings.filter((f) => f.ignored);
  if (ignored.length) out.push(`Ignored by the configuration: ${ignored.map((f) => `${f.name} (${f.kind})`).join(', ')}.`, '');
  const m = report.metrics;
  out.push(
    `D1 declared ${m.n1} · D2 installed ${m.n2} · D3 traced ${m.n3} — inflation ${formatRate(m.inflation)}, precision ${formatRate(m.precision)}, recall ${formatRate(m.recall)}, F1 ${formatRate(m.f1)}.`,
  );
  const p = report.productionOnly;
  if (p) out.push(`Production only (D2 without development-only packages, \`npm ls --all --omit=dev\`): D2 ${p.metrics.n2}, inflation ${formatRate(p.metrics.inflation)}.`);
  const runs = report.runs.map((r) => `\`${r.command}\` (${r.success ? 'exit 0' : r.timedOut ? 'timed out' : `exit ${r.exitCode ?? r.signal}`})`);
  out.push(`Traced: ${runs.join(', ')}; sandbox ${report.sandbox.backend}.`, '');
  return `${out.join('\n')}`;
}
