/** The page around every view: the navigation, the store's name, the live-update status, the two assets. */
import { html, type SafeHtml } from './safe-html.js';

export interface Page {
  title: string;
  body: SafeHtml;
  /** The store's change stamp the page was drawn at (the live script compares it). */
  stamp: string;
  status?: number;
}

const NAV: [string, string][] = [
  ['/', 'Runs'],
  ['/figures', 'Figures'],
  ['/repro', 'Re-runs'],
  ['/backend', 'Backends'],
];

export function layout(page: Page, store: string): string {
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="envproof-stamp" content="${page.stamp}">
<title>${page.title} · envproof view</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/view.css">
<script src="/assets/view.js" defer></script>
</head><body>
<header class="bar"><strong>envproof view</strong><nav>${NAV.map(([href, label]) => html`<a href="${href}">${label}</a>`)}</nav>
<span class="store">${store}</span><span id="live">live</span></header>
<main>${page.body}</main>
</body></html>
`.text;
}

/** A yes/no cell. */
export function yesNo(value: boolean): SafeHtml {
  return value ? html`<span class="yes">yes</span>` : html`<span class="no">no</span>`;
}

/** A number as the tables show it: integers as they are, others to `digits` decimals; null as a dash. */
export function num(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}
