// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml } from '../../../src/report/html-escape.js';
import { renderHtml } from '../../../src/report/html.js';
import { smallReport } from './fixtures/small-report.js';

describe('renderHtml (no browser)', () => {
  it('escapes the five HTML-significant characters', () => {
    assert.equal(escapeHtml(`<a href="x">Tom & Jerry's</a>`), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;');
  });

  it('writes one document with no script, no URL but SVG namespaces, and data as text', async () => {
    const html = await renderHtml(smallReport());
    assert.equal(html.match(/<html/g)?.length, 1);
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|@font-face/i);
    // The only absolute URLs are the xmlns declarations of the inline SVGs (8 figures, 2 namespaces each).
    const urls = [...html.matchAll(/(\S+?)="?(https?:\/\/[^"\s]+)/g)].map((m) => `${m[1]}=${m[2]}`);
    assert.deepEqual([...new Set(urls)].sort(), ['xmlns:xlink=http://www.w3.org/1999/xlink', 'xmlns=http://www.w3.org/2000/svg']);
    assert.equal(urls.length, 16);
    assert.doesNotMatch(html, /r&d |<bot>/, 'the raw agent name never reaches the markup');
    assert.match(html, /<dd>claude, r&amp;d &quot;&lt;bot&gt;&quot;<\/dd>/);
  });

  it('places the sections in the paper’s order, each figure before its tables', async () => {
    const html = await renderHtml(smallReport());
    const order = [...html.matchAll(/<(?:h2|figure data-figure="(\w+)"|table data-table="(\w+)")/g)]
      .map((m) => m[1] ?? m[2])
      .filter((id): id is string => id !== undefined);
    const at = (id: string) => order.indexOf(id);
    for (const [before, later] of [
      ['fig4', 'fig5'],
      ['fig6', 'convergence'],
      ['convergence', 'fig7'],
      ['fig7', 'mismatch_rates'],
      ['fig8', 'inflation'],
      ['table4_manifest_accuracy', 'fig9'],
      ['table5_stochastic', 'table6_cpp_syslib'],
      ['fig10', 'domains'],
      ['fig11', 'unnecessary_dependency_rate'],
      ['unnecessary_dependency_rate', 'tableA1_spearman'],
    ]) {
      assert.ok(at(before!) >= 0 && at(before!) < at(later!), `${before} before ${later} in ${order.join(' ')}`);
    }
  });
});
