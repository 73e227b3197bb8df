/**
 * One run: its summary, its attempts as a timeline (what the agent was told and wrote, how the attempt failed, the
 * project tree and what changed since the attempt before), the three layers with their gaps, the audit's findings,
 * the re-runs of its final project and, for a backend run, each attempt's evaluation.
 */
import { buildFindings } from '../audit/findings.js';
import { ecosystem } from '../ecosystems/index.js';
import { gapSets, projectMetrics } from '../metrics/project.js';
import type { AttemptRecord, BackendEvaluationRecord } from '../store/types.js';
import { num, yesNo, type Page } from './layout.js';
import { reproSummary } from './page-repro.js';
import { fileHref, instanceHref } from './routes.js';
import { html, type SafeHtml } from './safe-html.js';
import type { RunDetail } from './store-view.js';
import { treeDiff, type FileChange, type StoredTree } from './tree-diff.js';

type Trees = Map<string, StoredTree | undefined>;

function text(id: string, summary: string, content: string | null | undefined, open = false): SafeHtml {
  if (!content) return html``;
  return html`<details id="${id}" ${open && html`open`}><summary>${summary}</summary><pre data-text="${id}">${content}</pre></details>`;
}

function duration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function diffView(changes: readonly FileChange[], tree: string): SafeHtml {
  if (changes.length === 0) return html`<p class="meta">No file changed.</p>`;
  return html`<div class="diff">${changes.map((c) => html`<div class="file-change" data-change="${c.change}" data-path="${c.path}">
<p><span class="badge">${c.change}</span> ${c.change === 'removed' ? c.path : html`<a href="${fileHref(tree, c.path)}">${c.path}</a>`}${c.modeChange && html` <span class="meta">(${c.modeChange})</span>`}</p>
${c.unshown
    ? html`<p class="meta">${c.unshown === 'binary' ? 'Not text: contents not shown.' : 'Too large to compare line by line.'}</p>`
    : html`<pre>${c.hunks.map((h) => [
      html`<span class="hunk">@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@</span>`,
      h.lines.map((l) => html`<span class="${l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : ''}">${l}</span>`),
    ])}</pre>`}</div>`)}</div>`;
}

function evaluationView(e: BackendEvaluationRecord, tree: string | null): SafeHtml {
  const failed = e.assertions.filter((a) => !a.passed);
  const where = (file: string, line: number) => {
    const label = line > 0 ? `${file}:${line}` : file;
    return tree && file !== '.' ? html`<a href="${fileHref(tree, file, line || undefined)}">${label}</a>` : html`${label}`;
  };
  return html`<div class="evaluation" data-evaluation="${e.attempt}">
<p><strong>Backend evaluation</strong> (${e.framework}, level ${e.level}): ${yesNo(e.passed)} · A% strict ${num(e.aStrict, 1)}, lenient ${num(e.aLenient, 1)}
${e.postman && ` · Postman ${e.postman.passed}/${e.postman.total}`}${e.failureClass && ` · failure class ${e.failureClass}`}${e.rootCause && ` · root cause ${e.rootCause}`}</p>
${e.rootCauseNote && html`<p class="meta">${e.rootCauseNote}</p>`}
${!e.startup.started && html`<p>The server did not start: ${e.startup.reason ?? 'no reason recorded'}</p>`}
${failed.length > 0 && html`<details id="eval-${e.attempt}-failed" open><summary>${failed.length} of ${e.assertions.length} assertions failed</summary><ul>${failed.map((a) => html`<li><code>${a.id}</code> ${a.message ?? ''}</li>`)}</ul></details>`}
${(e.verifiers ?? []).map((v) => html`<p>verifier <strong>${v.name}</strong> (${v.rules}): ${yesNo(v.passed)}${v.strict !== undefined && html` · strict ${yesNo(v.strict)}`}</p>
${(v.evidence ?? []).length > 0 && html`<ul class="evidence">${v.evidence!.map((x) => html`<li>${where(x.file, x.line)} ${x.message}</li>`)}</ul>`}`)}
${text(`eval-${e.attempt}-log`, 'Server log', e.serverLog)}
</div>`;
}

function attemptView(a: AttemptRecord, previous: AttemptRecord | undefined, trees: Trees, evaluation: BackendEvaluationRecord | undefined): SafeHtml {
  const id = `attempt-${a.attempt}`;
  const tree = a.treeHash ? trees.get(a.treeHash) : undefined;
  const before = previous?.treeHash ? trees.get(previous.treeHash) : undefined;
  const tokens = a.tokensIn !== null || a.tokensOut !== null ? `tokens ${num(a.tokensIn)} in, ${num(a.tokensOut)} out` : '';
  const phases = a.phasesMs ? Object.entries(a.phasesMs).map(([p, ms]) => `${p} ${duration(ms)}`).join(', ') : '';
  return html`<li id="${id}" class="${a.success ? 'ok' : 'failed'}" data-attempt="${a.attempt}">
<h3>Attempt ${a.attempt} · ${a.attempt === 0 ? 'generation' : `repair ${a.attempt}`}: ${a.success ? html`<span class="yes">succeeded</span>` : html`<span class="no">failed</span>`}
${a.errorClass && html` — <code data-error-class>${a.errorClass}</code>`}${a.step && html` at ${a.step}`}</h3>
<p class="meta">${[a.startedAt ?? '', `took ${duration(a.durationMs)}`, tokens, a.costUsd !== null ? `$${a.costUsd.toFixed(4)}` : '', a.sandbox ? `sandbox ${a.sandbox}` : ''].filter(Boolean).join(' · ')}</p>
${phases && html`<p class="meta">${phases}</p>`}
${a.note && html`<p>Note: ${a.note}</p>`}
${text(`${id}-prompt`, 'Prompt sent', a.prompt)}
${text(`${id}-agent`, 'Agent output', a.agentOutput)}
${text(`${id}-agent-stderr`, 'Agent standard error', a.agentStderr)}
${text(`${id}-tail`, `Output of the failing step${a.step ? ` (${a.step})` : ''}`, a.errorTail, true)}
${text(`${id}-program`, 'Program output', a.programOutput)}
${text(`${id}-manifest`, `Manifest ${a.manifestPath ?? ''}`, a.manifest)}
${tree && a.treeHash && html`<details id="${id}-tree"><summary>Project tree (${tree.entries.length} files)</summary><ul class="tree">${tree.entries.map((e) => html`<li><a href="${fileHref(a.treeHash!, e.path)}">${e.path}</a>${e.kind === 'symlink' && ' (symlink)'}</li>`)}</ul></details>`}
${previous && tree && a.treeHash && html`<details id="${id}-diff" open><summary>Changes since attempt ${previous.attempt}</summary>${before ? diffView(treeDiff(before, tree), a.treeHash) : html`<p class="meta">Attempt ${previous.attempt} has no stored tree.</p>`}</details>`}
${evaluation && evaluationView(evaluation, a.treeHash)}
</li>`;
}

function layersView(d: RunDetail): SafeHtml {
  const { run } = d;
  const d1 = new Set(run.declared ?? []);
  const d2 = new Set(run.installed);
  const d3 = new Set(run.traced);
  if (!run.finalSuccess) {
    return html`<p class="meta">No attempt succeeded, so nothing was installed and traced to compare: D1 (attempt 0) is
${run.declared === null ? 'unknown (its manifest could not be read)' : run.declared.join(', ') || 'empty'}.</p>`;
  }
  const gaps = gapSets(d1, d2, d3);
  const marks = new Map<string, string[]>();
  for (const kind of ['phantom', 'hidden', 'bloat', 'transitive'] as const) for (const name of gaps[kind]) marks.set(name, [...(marks.get(name) ?? []), kind]);
  const names = [...new Set([...d1, ...d2, ...d3])].sort();
  const m = projectMetrics(d1, d2, d3);
  const tick = (on: boolean) => (on ? '✓' : '');
  return html`<p class="meta">D1 is what attempt 0 declared${run.declared === null ? ' (unknown: its manifest could not be read)' : ''}; D2 what the final attempt installed; D3 what its traced run loaded.
Phantom φ = ${num(m.phantomRate, 3)}, hidden η = ${num(m.hiddenRate, 3)}, bloat β = ${num(m.bloatRate, 3)}.</p>
<table data-table="layers"><thead><tr><th>package</th><th>D1 declared</th><th>D2 installed</th><th>D3 traced</th><th>gap</th></tr></thead><tbody>
${names.map((n) => html`<tr data-package="${n}"><td>${n}</td><td>${tick(d1.has(n))}</td><td>${tick(d2.has(n))}</td><td>${tick(d3.has(n))}</td><td>${(marks.get(n) ?? []).map((k) => html`<span class="badge ${k}" data-gap="${k}">${k}</span> `)}</td></tr>\n`)}
</tbody></table>`;
}

function findingsView(d: RunDetail): SafeHtml {
  const { run } = d;
  if (!run.finalSuccess || run.declared === null) return html``;
  const deps = (names: readonly string[]) => names.map((name) => ({ name }));
  const manifest = d.attempts.at(-1)?.manifestPath ?? ecosystem(run.language).manifestFiles[0] ?? 'the manifest';
  const findings = buildFindings({
    manifest,
    declared: deps(run.declared),
    installed: deps(run.installed),
    traced: deps(run.traced),
    gaps: gapSets(new Set(run.declared), new Set(run.installed), new Set(run.traced)),
    unpinned: [],
    locations: {},
  });
  return html`<h2 id="findings">Findings</h2>${findings.length === 0
    ? html`<p class="meta">No gap between the layers.</p>`
    : html`<ul data-list="findings">${findings.map((f) => html`<li><span class="badge ${f.kind}">${f.kind}</span> <strong>${f.name}</strong>: ${f.advice}</li>`)}</ul>`}`;
}

function summaryView(d: RunDetail): SafeHtml {
  const { run, task } = d;
  return html`<dl class="facts summary">
<dt>source</dt><dd>${run.source}${run.origin && ` (${run.origin})`}</dd>
<dt>status</dt><dd data-status>${run.status ?? 'done'}${run.statusReason && ` (${run.statusReason})`}</dd>
${task && html`<dt>task</dt><dd>${task.title ?? run.taskId} · ${task.domain}${task.complexity && ` · ${task.complexity}`}</dd>`}
<dt>first success</dt><dd>${yesNo(run.firstSuccess)}</dd>
<dt>final success</dt><dd>${yesNo(run.finalSuccess)}</dd>
<dt>repair depth</dt><dd>${num(run.repairDepth)}</dd>
<dt>first error class</dt><dd>${run.initialErrorType ?? '—'}</dd>
<dt>primary</dt><dd>${yesNo(run.primary)}</dd>
</dl>`;
}

/** Every tree the attempts refer to, read once. */
export async function attemptTrees(attempts: readonly AttemptRecord[], read: (hash: string) => Promise<StoredTree | undefined>): Promise<Trees> {
  const trees: Trees = new Map();
  for (const a of attempts) if (a.treeHash && !trees.has(a.treeHash)) trees.set(a.treeHash, await read(a.treeHash));
  return trees;
}

export function runPage(d: RunDetail, trees: Trees, stamp: string): Page {
  const { run } = d;
  const title = `${run.agent} · ${run.taskId} · ${ecosystem(run.language).displayName} · trial ${run.trial}`;
  const evaluations = new Map(d.evaluations.map((e) => [e.attempt, e]));
  const raw = run.raw ? Object.entries(run.raw) : [];
  const body = html`<h1>${title}</h1>
${summaryView(d)}
<h2 id="attempts">Attempts</h2>
${d.attempts.length === 0
    ? html`<p class="meta">${run.source === 'envproof' ? 'No attempt recorded yet.' : 'Imported runs have no attempts: the data holds one row per run.'}</p>`
    : html`<ol class="timeline">${d.attempts.map((a, i) => attemptView(a, d.attempts[i - 1], trees, evaluations.get(a.attempt)))}</ol>`}
<h2 id="layers">Layers</h2>
${layersView(d)}
${findingsView(d)}
${d.repro && html`<h2 id="repro">Re-runs of the final project</h2>${reproSummary(d.repro)}<p><a href="${instanceHref(d.repro.corpus, d.repro.instanceId)}">the re-run's page</a></p>`}
${raw.length > 0 && html`<h2 id="imported">Imported row</h2><table data-table="raw"><tbody>${raw.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table>`}`;
  return { title, body, stamp };
}
