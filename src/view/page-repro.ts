/** Re-runs: the finished instances of `envproof repro --corpus` and `envproof run --repro`, and one instance. */
import { wilsonInterval } from '../metrics/stats.js';
import { runKeyOf } from '../repro/final-projects.js';
import { RUN_CORPUS, type ReproInstanceRow } from '../store/repro-tables.js';
import { num, type Page } from './layout.js';
import { instanceHref, runHref } from './routes.js';
import { html, type SafeHtml } from './safe-html.js';

/** The reproduction rate r over k runs, with its 95% Wilson interval. */
export function rateText(rate: number | null, k: number): string {
  if (rate === null) return '—';
  const ci = wilsonInterval(Math.round(rate * k), k);
  return `${num(rate, 2)} of k = ${k}${ci ? ` (95% CI ${ci[0].toFixed(2)}–${ci[1].toFixed(2)})` : ''}`;
}

/** An instance's verdicts, rates, causes and shim, as the run page and the instance page show it. */
export function reproSummary(r: ReproInstanceRow): SafeHtml {
  const causes = r.causes ?? [];
  return html`<dl class="facts" data-repro="${r.instanceId}">
<dt>verdict</dt><dd data-verdict>${r.verdict ?? '—'}</dd>
<dt>rate</dt><dd>${rateText(r.rate, r.k)}</dd>
${r.shimVerdict && html`<dt>with the shim</dt><dd>${r.shimVerdict}, ${rateText(r.shimRate, r.k)}${r.overheadRatio !== null && `; test time × ${num(r.overheadRatio, 2)}`}</dd>`}
${r.baselineVerdict && html`<dt>unpatched baseline</dt><dd>${r.baselineVerdict}, ${rateText(r.baselineRate, r.k)}</dd>`}
<dt>kind</dt><dd>${r.kind ?? '—'}</dd>
<dt>command</dt><dd><code>${r.command}</code></dd>
<dt>recorded / re-run</dt><dd>${r.recordedAt} / ${r.rerunAt}</dd>
</dl>
${causes.length === 0
    ? html`<p class="meta">No causes attributed${r.verdict === 'reproducible' ? ' (reproducible)' : ' (attribution not asked for, or nothing found)'}.</p>`
    : html`<table data-table="causes"><thead><tr><th>factor</th><th>category</th><th>evidence</th></tr></thead><tbody>${causes.map((c) => html`<tr><td>${c.factor}</td><td>${c.category}</td><td>${c.evidence}</td></tr>`)}</tbody></table>`}`;
}

function subject(r: ReproInstanceRow): SafeHtml {
  if (r.corpus !== RUN_CORPUS) return html`${r.repo} @ ${r.commit.slice(0, 12)}`;
  const key = runKeyOf(r.instanceId);
  return html`<a href="${runHref(key)}">${key.agent} · ${key.taskId} · ${key.language} · trial ${key.trial}</a>`;
}

export function reproListPage(rows: readonly ReproInstanceRow[], stamp: string, page: { items: ReproInstanceRow[]; page: number; pages: number }): Page {
  const body = rows.length === 0
    ? html`<h1>Re-runs</h1><p class="empty">No finished re-runs: envproof repro --corpus and envproof run --repro record them.</p>`
    : html`<h1>Re-runs</h1><p class="pager">${rows.length} instances · page ${page.page} of ${page.pages}
${page.page > 1 && html`<a rel="prev" href="/repro?page=${page.page - 1}">‹ previous</a>`} ${page.page < page.pages && html`<a rel="next" href="/repro?page=${page.page + 1}">next ›</a>`}</p>
<table data-table="repro"><thead><tr><th>corpus</th><th>instance</th><th>project</th><th>verdict</th><th>rate</th><th>shim</th><th>causes</th></tr></thead><tbody>
${page.items.map((r) => html`<tr><td>${r.corpus}</td><td><a href="${instanceHref(r.corpus, r.instanceId)}">${r.instanceId}</a></td><td>${subject(r)}</td><td>${r.verdict ?? '—'}</td><td class="num">${rateText(r.rate, r.k)}</td><td>${r.shimVerdict ?? '—'}</td><td>${(r.causes ?? []).map((c) => c.category).join(', ') || '—'}</td></tr>\n`)}
</tbody></table>`;
  return { title: 'Re-runs', body, stamp };
}

export function instancePage(r: ReproInstanceRow, stamp: string): Page {
  return { title: `Re-run ${r.instanceId}`, body: html`<h1>Re-run ${r.instanceId}</h1><p class="meta">corpus ${r.corpus} · ${subject(r)}</p>${reproSummary(r)}`, stamp };
}
