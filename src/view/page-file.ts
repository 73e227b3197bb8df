/** One file of a stored project tree, always as text: never rendered, never executed, never served as itself. */
import type { TreeEntry } from '../store/types.js';
import type { Page } from './layout.js';
import { html } from './safe-html.js';
import { textOf, type StoredTree } from './tree-diff.js';

/** Files beyond this are shown up to it, with a note. */
export const MAX_SHOWN_BYTES = 1024 * 1024;

export function filePage(tree: string, entry: TreeEntry, stored: StoredTree, stamp: string): Page {
  const content = stored.blob(entry.blob);
  let body;
  if (entry.kind === 'symlink') {
    body = html`<p>A symbolic link to <code data-link>${content.toString('utf8')}</code> (shown, never followed).</p>`;
  } else {
    const text = textOf(content.subarray(0, MAX_SHOWN_BYTES), content.length > MAX_SHOWN_BYTES);
    body = text === undefined
      ? html`<p class="meta">Not text (${content.length} bytes): not shown.</p>`
      : html`${content.length > MAX_SHOWN_BYTES && html`<p class="meta">The first ${MAX_SHOWN_BYTES} of ${content.length} bytes.</p>`}
<pre class="file" data-file="${entry.path}">${text.replace(/\n$/, '').split('\n').map((line, i) => html`<span class="line" id="L${i + 1}">${line}</span>`)}</pre>`;
  }
  return {
    title: entry.path,
    body: html`<h1>${entry.path}</h1><p class="meta">tree ${tree.slice(0, 12)} · ${content.length} bytes${entry.executable && ' · executable'}</p>${body}`,
    stamp,
  };
}
