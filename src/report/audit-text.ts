import { shellCommandLine } from '../core/shell.js';
import type { AuditReport, LayerCount, LayerEntry } from '../audit/report.js';
import { toolsLabel } from '../ecosystems/promise.js';

export function formatRate(x: number | null, digits = 2): string {
  return x === null ? 'n/a' : x.toFixed(digits);
}

function entry(e: LayerEntry): string {
  return e.version ? `${e.name} ${e.version}` : e.name;
}

/** `(12)`, or `(161 entries, 154 names)` when a name is listed at several versions (the metrics count names). */
function countLabel(c: LayerCount | null): string {
  if (!c) return '(unknown)';
  return c.entries === c.names ? `(${c.names})` : `(${c.entries} entries, ${c.names} names)`;
}

/** The three layers as columns, one package per row. */
function layerTable(r: AuditReport): string[] {
  const cols = [r.layers.declared, r.layers.installed, r.layers.traced ?? []].map((l) => l.map(entry));
  if (r.layers.traced === null) cols[2] = ['(never started)'];
  const heads = [`D1 declared ${countLabel(r.layerCounts.declared)}`, `D2 installed ${countLabel(r.layerCounts.installed)}`, `D3 traced ${countLabel(r.layerCounts.traced)}`];
  const widths = heads.map((h, i) => Math.max(h.length, ...cols[i]!.map((c) => c.length)));
  const rows = Math.max(1, ...cols.map((c) => c.length));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(heads), line(widths.map((w) => '-'.repeat(w)))];
  for (let i = 0; i < rows; i++) out.push(line(cols.map((c) => c[i] ?? (i === 0 && c.length === 0 ? '(none)' : ''))));
  const counts = [r.layerCounts.declared, r.layerCounts.installed, r.layerCounts.traced];
  if (counts.some((c) => c && c.entries !== c.names)) out.push('(a name listed at several versions is one entry per version; the metrics count names)');
  return out;
}

function gapLine(label: string, names: string[] | null, meaning: string): string {
  if (names === null) return `  ${label.padEnd(11)}   ?  unknown: the program never started`;
  return `  ${label.padEnd(11)} ${String(names.length).padStart(3)}  ${names.length ? names.join(', ') : '-'}${names.length ? `\n${' '.repeat(19)}(${meaning})` : ''}`;
}

/** The phantoms by what to do about them, when the ecosystem read the code's static imports. */
function phantomSplit(r: AuditReport): string[] {
  const phantoms = r.findings.filter((f) => f.kind === 'phantom' && f.phantom);
  if (!phantoms.length) return [];
  const unused = phantoms.filter((f) => f.phantom === 'unused').map((f) => f.name);
  const constrained = phantoms.filter((f) => f.buildConstraints);
  const notTraced = phantoms.filter((f) => f.phantom === 'not-traced' && !f.buildConstraints);
  const out: string[] = [];
  const pad = ' '.repeat(19);
  if (unused.length) out.push(`${pad}unused, nothing imports it (remove): ${unused.join(', ')}`);
  if (notTraced.length) {
    out.push(`${pad}imported by the code, not loaded: ${notTraced.map((f) => `${f.name} (${f.importedAt?.[0] ?? ''})`).join(', ')}`);
    out.push(`${pad}  (${notTraced[0]!.advice})`);
  }
  const discovered = phantoms.filter((f) => f.phantom === 'discovered');
  if (discovered.length) {
    out.push(`${pad}not imported, loaded by discovery (keep): ${discovered.map((f) => `${f.name} (${f.discovery?.rule}, ${f.discovery?.evidence})`).join(', ')}`);
  }
  if (constrained.length) {
    out.push(`${pad}imported only under build constraints the build did not use: ${constrained.map((f) => `${f.name} (tags: ${f.buildConstraints!.join('; ')})`).join(', ')}`);
  }
  return out;
}

/**
 * D2 \\ D1 as the paper counts it; the packages in it that a group outside D1 declares (npm devDependencies) are
 * named under "Declared outside D1", not as installed but undeclared.
 */
function transitiveLines(r: AuditReport): string[] {
  const elsewhere = new Set(r.findings.filter((f) => f.kind === 'transitive' && f.declaredIn).map((f) => f.name));
  if (!elsewhere.size) return [gapLine('transitive', r.gaps.transitive, 'installed but not declared: D2 \\ D1')];
  const undeclared = r.gaps.transitive.filter((n) => !elsewhere.has(n));
  const line = `  ${'transitive'.padEnd(11)} ${String(r.gaps.transitive.length).padStart(3)}  ${undeclared.join(', ') || '-'}`;
  return [line, `${' '.repeat(19)}(installed but not declared: D2 \\ D1; ${elsewhere.size} more declared outside D1, listed there)`];
}

/** The production-only D2 beside the paper's, where the install includes development-only packages. */
function productionLine(r: AuditReport): string[] {
  const p = r.productionOnly;
  if (!p) return [];
  return [`  production only (D2 without development-only packages, as npm ls --all --omit=dev): D2 ${countLabel(p.count)}, inflation ${formatRate(p.metrics.inflation)}   bloat rate ${formatRate(p.metrics.bloatRate)}`];
}

/** The hidden dependencies by what to do about them, when the ecosystem read the code's static imports. */
function hiddenSplit(r: AuditReport): string[] {
  const hidden = r.findings.filter((f) => f.kind === 'hidden' && f.hidden);
  const pad = ' '.repeat(19);
  const direct = hidden.filter((f) => f.hidden === 'direct');
  const transitive = hidden.filter((f) => f.hidden === 'transitive');
  const out: string[] = [];
  if (direct.length) out.push(`${pad}imported by the code (declare it): ${direct.map((f) => `${f.name} (${f.importedAt?.[0] ?? ''})`).join(', ')}`);
  if (transitive.length) out.push(`${pad}loaded through other packages (declare only if you import it): ${transitive.map((f) => (f.via ? f.via.join(' → ') : f.name)).join(', ')}`);
  return out;
}

/** Modules the code imports that nothing provides: runtime code's, then development code's apart. */
function missingLines(r: AuditReport): string[] {
  const missing = r.findings.filter((f) => f.kind === 'missing');
  if (!missing.length) return [];
  const runtime = missing.filter((f) => f.importedAt);
  const development = missing.filter((f) => !f.importedAt);
  const out = ['', 'Missing (imported by the code, provided by no installed package)'];
  for (const f of runtime) out.push(`  ${f.name}  at ${f.importedAt!.slice(0, 3).join(', ')}${f.runError ? `\n    the run failed on it: ${f.runError}` : ''}`);
  if (development.length) out.push(`  development imports (tests, docs, examples; not runtime dependencies): ${development.map((f) => `${f.name} (${f.developmentImports?.[0] ?? ''})`).join(', ')}`);
  return out;
}

export interface AuditTextOptions {
  /** Also the full command line that was traced (internal paths, the class path, the PATH wrapper). */
  verbose?: boolean;
}

/** The readable audit report. */
export function renderAuditText(r: AuditReport, opts: AuditTextOptions = {}): string {
  const m = r.metrics;
  const out: string[] = [];
  out.push(`envproof audit: ${r.project}`);
  const chosen = r.sandbox.requested === r.sandbox.backend ? '' : ` (--sandbox ${r.sandbox.requested})`;
  const tools = r.sandbox.tools ? ` (${toolsLabel(r.sandbox.tools)})` : '';
  out.push(`ecosystem ${r.ecosystem}, manifest ${r.manifest}, sandbox ${r.sandbox.backend}${chosen}${tools}`);
  if (r.sandbox.warning) out.push(`warning: ${r.sandbox.warning}`);
  out.push('');
  out.push(...layerTable(r));
  out.push('');
  out.push('Gaps');
  out.push(gapLine('phantom', r.gaps.phantom, 'declared but never loaded: D1 \\ D3'));
  out.push(...phantomSplit(r));
  out.push(gapLine('hidden', r.gaps.hidden, 'loaded but not declared: D3 \\ D1'));
  out.push(...hiddenSplit(r));
  out.push(gapLine('bloat', r.gaps.bloat, 'installed but never loaded: D2 \\ D3'));
  out.push(...transitiveLines(r));
  out.push('');
  out.push(`Metrics (over distinct names: n1 ${m.n1}, n2 ${m.n2}, n3 ${m.n3 ?? 'unknown'})`);
  out.push(`  inflation ${formatRate(m.inflation)}   phantom rate ${formatRate(m.phantomRate)}   hidden rate ${formatRate(m.hiddenRate)}   bloat rate ${formatRate(m.bloatRate)}`);
  out.push(`  precision ${formatRate(m.precision)}   recall ${formatRate(m.recall)}   F1 ${formatRate(m.f1)}`);
  out.push(...productionLine(r));
  if (r.paperCompatible) {
    const pm = r.paperCompatible.metrics;
    out.push(`  paper-compatible (D2 := D1, as the paper defines it for C++): inflation ${formatRate(pm.inflation)}   bloat rate ${formatRate(pm.bloatRate)}`);
  }
  const alternatives = Object.entries(r.alternatives).filter(([name]) => r.alternativeMetrics[name]);
  if (alternatives.length) {
    out.push('');
    out.push('Other views of D3 (the metrics above use the traced layer)');
    for (const [name, deps] of alternatives) {
      const am = r.alternativeMetrics[name]!.metrics;
      const g = r.alternativeMetrics[name]!.gaps;
      out.push(`  ${name}: ${deps.map((d) => d.name).join(', ') || '(none)'}`);
      out.push(`    phantom ${g.phantom.join(', ') || '-'}; hidden ${g.hidden.join(', ') || '-'}`);
      out.push(`    precision ${formatRate(am.precision)}   recall ${formatRate(am.recall)}   F1 ${formatRate(am.f1)}   phantom rate ${formatRate(am.phantomRate)}   hidden rate ${formatRate(am.hiddenRate)}`);
    }
  }
  if (r.buildTools.declared.length || r.buildTools.found.length) {
    out.push('');
    out.push('Build tools (programs the build looks for, not library dependencies; in no layer)');
    if (r.buildTools.declared.length) out.push(`  declared: ${r.buildTools.declared.map(entry).join(', ')}`);
    if (r.buildTools.found.length) out.push(`  found:    ${r.buildTools.found.map(entry).join(', ')}`);
    const paper = r.alternativeMetrics.withBuildTools?.metrics;
    if (paper) {
      out.push(`  counted as dependencies, as the paper counts every find_package name: inflation ${formatRate(paper.inflation)}   phantom rate ${formatRate(paper.phantomRate)}`);
      out.push(`    precision ${formatRate(paper.precision)}   recall ${formatRate(paper.recall)}   F1 ${formatRate(paper.f1)}`);
    }
  }
  if (r.systemDependencies.length) {
    out.push('');
    out.push('System dependencies (Debian packages added to the clean environment with --system-packages)');
    out.push(`  ${r.systemDependencies.map((d) => `${d.name} ${d.version}`.trim()).join(', ')}`);
  }
  if (r.loadedBySystemTools?.length) {
    out.push('');
    out.push("Loaded by system tools (mapped only by programs that are not the project's; in no layer)");
    for (const l of r.loadedBySystemTools) out.push(`  ${entry(l)}  by ${l.programs.join(', ')}`);
  }
  const other = Object.entries(r.otherDeclared).filter(([, v]) => v.length);
  if (other.length) {
    out.push('');
    out.push('Declared outside D1');
    const installed = new Set(r.findings.filter((f) => f.kind === 'transitive' && f.declaredIn).map((f) => `${f.declaredIn}\0${f.name}`));
    for (const [group, deps] of other) out.push(`  ${group}: ${deps.map((d) => `${entry(d)}${installed.has(`${group}\0${d.name}`) ? ' (installed)' : ''}`).join(', ')}`);
  }
  if (r.skipped.length) {
    out.push('');
    out.push('Manifest entries not counted');
    for (const s of r.skipped) out.push(`  ${s.raw}  [${s.reason}${s.detail ? `: ${s.detail}` : ''}]${s.source ? `  at ${s.source}` : ''}`);
  }
  out.push(...missingLines(r));
  const unpinned = r.findings.filter((f) => f.kind === 'unpinned');
  if (unpinned.length) {
    out.push('');
    out.push(`Unpinned (declared without one exact version): ${unpinned.map((f) => `${f.name}${f.version ? ` (installed ${f.version})` : ''}`).join(', ')}`);
  }
  const ignored = r.findings.filter((f) => f.ignored);
  if (ignored.length) out.push(`Ignored by the configuration: ${ignored.map((f) => `${f.name} (${f.kind})`).join(', ')}`);
  out.push('');
  for (const run of r.runs) {
    const status = !run.started
      ? `never started: ${run.notStarted}`
      : run.timedOut ? 'timed out' : run.success ? 'succeeded' : run.signal ? `killed by ${run.signal}` : `failed with exit code ${run.exitCode}`;
    out.push(`Run: ${run.command}  (${run.reason})`);
    if (opts.verbose) out.push(`  full command line: ${shellCommandLine(run.argv)}`);
    const tracer = run.tracer === 'fast' ? 'the fast tracer (kernel events)' : 'strace';
    const network = run.isolation.networkOff ? 'the network off' : 'the network ON (not isolated)';
    out.push(`  ${status} in ${(run.durationMs / 1000).toFixed(2)} s, traced with ${tracer}, ${network}`);
    const o = run.overhead;
    if (o) out.push(`  tracing overhead (${o.tracer}, ${o.n} runs each): untraced ${o.untracedMedianMs} ms, traced ${o.tracedMedianMs} ms (medians), ratio ${o.ratio.toFixed(3)} (median of the pairwise ratios)`);
    if (!run.success && run.outputTail.trim()) {
      out.push('  last output:');
      for (const l of run.outputTail.trimEnd().split('\n').slice(-10)) out.push(`    ${l}`);
    }
  }
  const p = r.phasesMs;
  out.push(`Time: prepare ${p.prepare} ms, install ${p.install} ms, build ${p.build} ms, run ${p.run} ms, reading the trace ${p.tracing} ms, analysis ${p.analysis} ms${p.overhead ? `, overhead runs ${p.overhead} ms` : ''}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  if (r.workDir) out.push(`work directory kept: ${r.workDir}`);
  return `${out.join('\n')}\n`;
}
