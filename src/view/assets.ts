/**
 * The two files the pages load from the server itself (the Content-Security-Policy allows nothing else): the style
 * sheet (the HTML report's, plus the view's own rules) and the script that keeps a page live.
 */
import { REPORT_CSS } from '../report/html-style.js';

/** How often a page asks whether the store changed. */
export const POLL_MS = 1500;

const VIEW_CSS = `
body { max-width: none; padding: 0 24px 48px; }
header.bar { display: flex; gap: 20px; align-items: baseline; border-bottom: 2px solid #d0d7de; padding: 10px 0; margin-bottom: 12px; flex-wrap: wrap; }
header.bar strong { font-size: 1.15em; }
header.bar nav a { margin-right: 14px; }
header.bar .store { color: #57606a; font-size: 0.85em; }
#live { font-size: 0.8em; color: #57606a; margin-left: auto; }
#live.offline { color: #b42318; }
main h1 { font-size: 1.4em; margin: 12px 0 4px; }
.tabs a, .facet a { display: inline-block; padding: 2px 8px; margin: 2px 4px 2px 0; border: 1px solid #d0d7de; border-radius: 12px; text-decoration: none; font-size: 0.85em; }
.tabs a.on, .facet a.on { background: #0969da; color: #fff; border-color: #0969da; }
.facets { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 12px; font-size: 0.9em; }
.facets dt { font-weight: 600; padding-top: 3px; }
.facets dd { margin: 0; }
.pager { margin: 8px 0; }
.pager a { margin: 0 6px; }
th a { color: inherit; }
.yes { color: #1a7f37; font-weight: 600; }
.no { color: #b42318; font-weight: 600; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 0.8em; background: #eaeef2; }
.badge.phantom { background: #e9e2fb; } .badge.hidden { background: #fde4d4; } .badge.bloat { background: #d5f2e9; } .badge.transitive { background: #eaeef2; }
ol.timeline { list-style: none; padding: 0; border-left: 3px solid #d0d7de; margin-left: 6px; }
ol.timeline > li { margin: 0 0 18px 0; padding-left: 14px; }
ol.timeline > li.ok { border-left: 3px solid #1a7f37; margin-left: -3px; }
ol.timeline > li.failed { border-left: 3px solid #b42318; margin-left: -3px; }
pre { background: #f6f8fa; padding: 8px 10px; overflow-x: auto; font-size: 0.85em; line-height: 1.4; max-height: 480px; }
pre.file { max-height: none; counter-reset: line; }
pre.file span.line { display: block; }
pre.file span.line:target { background: #fff8c5; }
pre.file span.line::before { counter-increment: line; content: counter(line); display: inline-block; width: 3.5em; color: #8c959f; text-align: right; margin-right: 12px; user-select: none; }
.diff .file-change { margin: 8px 0; }
.diff pre span { display: block; }
.diff .add { background: #dafbe1; } .diff .del { background: #ffebe9; } .diff .hunk { color: #57606a; }
details > summary { cursor: pointer; margin: 4px 0; }
.meta { color: #57606a; font-size: 0.88em; }
dl.summary { grid-template-columns: repeat(3, max-content minmax(8em, max-content)); column-gap: 14px; }
`;

export const STYLE_SHEET = REPORT_CSS + VIEW_CSS;

/**
 * Live updates: every POLL_MS the page asks for the store's change stamp; when it differs from the one the page was
 * drawn at, the page is fetched again and its <main> swapped in (the <details> that were open stay open).
 */
export const CLIENT_SCRIPT = `'use strict';
(() => {
  const live = document.getElementById('live');
  let stamp = document.querySelector('meta[name="envproof-stamp"]')?.content;
  const show = (text, offline) => { live.textContent = text; live.classList.toggle('offline', offline); };
  async function refresh() {
    const page = await fetch(location.href, { cache: 'no-store' });
    const doc = new DOMParser().parseFromString(await page.text(), 'text/html');
    const main = doc.querySelector('main');
    if (!main) return;
    const open = [...document.querySelectorAll('details[open][id]')].map((d) => d.id);
    document.querySelector('main').replaceWith(document.adoptNode(main));
    for (const id of open) document.getElementById(id)?.setAttribute('open', '');
    stamp = doc.querySelector('meta[name="envproof-stamp"]')?.content ?? stamp;
  }
  async function poll() {
    try {
      const r = await fetch('/api/stamp', { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const now = (await r.json()).stamp;
      if (now !== stamp) await refresh();
      show('live · updated ' + new Date().toLocaleTimeString(), false);
    } catch (err) {
      show('not updating: ' + err.message, true);
    }
    setTimeout(poll, ${POLL_MS});
  }
  setTimeout(poll, ${POLL_MS});
})();
`;
