/** Backend evaluations: the final evaluation of every finished backend run, one page at a time. */
import type { BackendEvaluationRecord, RunKey } from '../store/types.js';
import { num, yesNo, type Page } from './layout.js';
import { runHref } from './routes.js';
import { html } from './safe-html.js';

type Final = BackendEvaluationRecord & { key: RunKey };

export function backendPage(all: readonly Final[], page: { items: Final[]; page: number; pages: number }, stamp: string): Page {
  const body = all.length === 0
    ? html`<h1>Backends</h1><p class="empty">No backend evaluations: envproof run --suite backend records them.</p>`
    : html`<h1>Backends</h1><p class="pager">${all.length} finished backend runs · page ${page.page} of ${page.pages}
${page.page > 1 && html`<a rel="prev" href="/backend?page=${page.page - 1}">‹ previous</a>`} ${page.page < page.pages && html`<a rel="next" href="/backend?page=${page.page + 1}">next ›</a>`}</p>
<table data-table="backend"><thead><tr><th>run</th><th>framework</th><th>level</th><th>passed</th><th>A% strict</th><th>A% lenient</th><th>failed assertions</th><th>verifiers failing</th><th>failure class</th><th>root cause</th></tr></thead><tbody>
${page.items.map((e) => html`<tr><td><a href="${runHref(e.key)}#attempt-${e.attempt}">${e.key.agent} · ${e.key.taskId} · ${e.key.language} · trial ${e.key.trial}</a></td><td>${e.framework}</td><td class="num">${e.level}</td><td>${yesNo(e.passed)}</td>
<td class="num">${num(e.aStrict, 1)}</td><td class="num">${num(e.aLenient, 1)}</td><td class="num">${e.assertions.filter((a) => !a.passed).length}</td>
<td>${(e.verifiers ?? []).filter((v) => !v.passed).map((v) => v.name).join(', ') || '—'}</td><td>${e.failureClass ?? '—'}</td><td>${e.rootCause ?? '—'}</td></tr>\n`)}
</tbody></table>`;
  return { title: 'Backends', body, stamp };
}
