import type { AuditReport, LayerEntry } from '../audit/report.js';

function fmt(x: number | null, digits = 2): string {
  return x === null ? 'n/a' : x.toFixed(digits);
}

function entry(e: LayerEntry): string {
  return e.version ? `${e.name} ${e.version}` : e.name;
}

/** The three layers as columns, one package per row. */
function layerTable(r: AuditReport): string[] {
  const cols = [r.layers.declared, r.layers.installed, r.layers.traced].map((l) => l.map(entry));
  const heads = [`D1 declared (${r.layers.declared.length})`, `D2 installed (${r.layers.installed.length})`, `D3 traced (${r.layers.traced.length})`];
  const widths = heads.map((h, i) => Math.max(h.length, ...cols[i]!.map((c) => c.length)));
  const rows = Math.max(1, ...cols.map((c) => c.length));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(heads), line(widths.map((w) => '-'.repeat(w)))];
  for (let i = 0; i < rows; i++) out.push(line(cols.map((c) => c[i] ?? (i === 0 && c.length === 0 ? '(none)' : ''))));
  return out;
}

function gapLine(label: string, names: string[], meaning: string): string {
  return `  ${label.padEnd(11)} ${String(names.length).padStart(3)}  ${names.length ? names.join(', ') : '-'}${names.length ? `\n${' '.repeat(19)}(${meaning})` : ''}`;
}

/** The readable audit report. */
export function renderAuditText(r: AuditReport): string {
  const m = r.metrics;
  const out: string[] = [];
  out.push(`envproof audit: ${r.project}`);
  const chosen = r.sandbox.requested === r.sandbox.backend ? '' : ` (--sandbox ${r.sandbox.requested})`;
  out.push(`ecosystem ${r.ecosystem}, manifest ${r.manifest}, sandbox ${r.sandbox.backend}${chosen}`);
  if (r.sandbox.warning) out.push(`warning: ${r.sandbox.warning}`);
  out.push('');
  out.push(...layerTable(r));
  out.push('');
  out.push('Gaps');
  out.push(gapLine('phantom', r.gaps.phantom, 'declared but never loaded: D1 \\ D3'));
  out.push(gapLine('hidden', r.gaps.hidden, 'loaded but not declared: D3 \\ D1'));
  out.push(gapLine('bloat', r.gaps.bloat, 'installed but never loaded: D2 \\ D3'));
  out.push(gapLine('transitive', r.gaps.transitive, 'installed but not declared: D2 \\ D1'));
  out.push('');
  out.push('Metrics');
  out.push(`  inflation ${fmt(m.inflation)}   phantom rate ${fmt(m.phantomRate)}   hidden rate ${fmt(m.hiddenRate)}   bloat rate ${fmt(m.bloatRate)}`);
  out.push(`  precision ${fmt(m.precision)}   recall ${fmt(m.recall)}   F1 ${fmt(m.f1)}`);
  const alternatives = Object.entries(r.alternatives);
  if (alternatives.length) {
    out.push('');
    out.push('Other views of D3 (the metrics above use the traced layer)');
    for (const [name, deps] of alternatives) {
      const am = r.alternativeMetrics[name]!.metrics;
      const g = r.alternativeMetrics[name]!.gaps;
      out.push(`  ${name}: ${deps.map((d) => d.name).join(', ') || '(none)'}`);
      out.push(`    phantom ${g.phantom.join(', ') || '-'}; hidden ${g.hidden.join(', ') || '-'}`);
      out.push(`    precision ${fmt(am.precision)}   recall ${fmt(am.recall)}   F1 ${fmt(am.f1)}   phantom rate ${fmt(am.phantomRate)}   hidden rate ${fmt(am.hiddenRate)}`);
    }
  }
  if (r.systemDependencies.length) {
    out.push('');
    out.push('System dependencies (Debian packages added to the clean environment with --system-packages)');
    out.push(`  ${r.systemDependencies.map((d) => `${d.name} ${d.version}`.trim()).join(', ')}`);
  }
  const other = Object.entries(r.otherDeclared).filter(([, v]) => v.length);
  if (other.length) {
    out.push('');
    out.push('Declared outside D1');
    for (const [group, deps] of other) out.push(`  ${group}: ${deps.map(entry).join(', ')}`);
  }
  if (r.skipped.length) {
    out.push('');
    out.push('Manifest entries not counted');
    for (const s of r.skipped) out.push(`  ${s.raw}  [${s.reason}${s.detail ? `: ${s.detail}` : ''}]${s.source ? `  at ${s.source}` : ''}`);
  }
  out.push('');
  const run = r.run;
  const status = run.timedOut ? 'timed out' : run.success ? 'succeeded' : run.signal ? `killed by ${run.signal}` : `failed with exit code ${run.exitCode}`;
  out.push(`Run: ${run.command}  (${run.reason})`);
  const network = run.isolation.networkOff ? 'traced with the network off' : 'traced with the network ON (not isolated)';
  out.push(`  ${status} in ${(run.durationMs / 1000).toFixed(2)} s, ${network}`);
  if (!run.success && run.outputTail.trim()) {
    out.push('  last output:');
    for (const l of run.outputTail.trimEnd().split('\n').slice(-10)) out.push(`    ${l}`);
  }
  const p = r.phasesMs;
  out.push(`Time: prepare ${p.prepare} ms, install ${p.install} ms, build ${p.build} ms, run ${p.run} ms, reading the trace ${p.tracing} ms, analysis ${p.analysis} ms`);
  for (const n of r.notes) out.push(`note: ${n}`);
  if (r.workDir) out.push(`work directory kept: ${r.workDir}`);
  return `${out.join('\n')}\n`;
}
