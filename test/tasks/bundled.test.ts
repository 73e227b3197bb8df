// tier: quick
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ecosystemIds } from '../../src/ecosystems/index.js';
import { resolveSuite } from '../../src/tasks/resolve.js';
import { PROMPT_VARIANTS } from '../../src/tasks/types.js';
import { SHARED } from '../helpers/cli.js';
import { requiresShared } from '../helpers/requires.js';

const PROMPTS = path.join(SHARED, 'data/envgap-paper/data/prompts');
const suite = resolveSuite('bundled');
const allText = (t: { description: string; functionalRequirements: string[] }) => [t.description, ...t.functionalRequirements];

/** The first four columns of the paper's overview; none of them contains a comma or a quote. */
function overviewRows(): string[][] {
  const lines = readFileSync(path.join(PROMPTS, 'prompt_overview.csv'), 'utf8').trim().split(/\r?\n/);
  assert.equal(lines[0]!.split(',').slice(0, 4).join(','), 'prompt_id,task_title,category,complexity');
  return lines.slice(1).map((l) => l.split(',').slice(0, 4));
}

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
function shingles(text: string, n: number): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(' '));
  return out;
}

describe('bundled suite', () => {
  it('has the 50 tasks of the paper with the same id, title, domain and complexity', requiresShared(SHARED, 'data/envgap-paper/data/prompts'), () => {
    const rows = overviewRows();
    assert.equal(rows.length, 50);
    assert.deepEqual(
      suite.tasks.map((t) => [t.id, t.title, t.domain, t.complexity]),
      rows,
    );
  });

  it('gives every task one paragraph and 4 to 8 requirements, the last saying what the demonstration does', () => {
    for (const t of suite.tasks) {
      assert.doesNotMatch(t.description, /\n/, `${t.id}: description is one paragraph`);
      assert.ok(t.description.split(/\s+/).length >= 25, `${t.id}: description has substance`);
      const n = t.functionalRequirements.length;
      assert.ok(n >= 4 && n <= 8, `${t.id}: ${n} requirements`);
      assert.match(t.functionalRequirements.at(-1)!, /^The demonstration /, `${t.id}: last requirement describes the demonstration`);
      assert.equal(t.functionalRequirements.filter((r) => /demonstration/i.test(r)).length, 1, `${t.id}: one demonstration requirement`);
    }
  });

  it('leaves the no-arguments rule to the prompt template, which states it exactly once', () => {
    for (const t of suite.tasks) {
      for (const s of allText(t)) assert.doesNotMatch(s, /no arguments|exit(s)? (with )?(status )?0\b/i, `${t.id}: ${s}`);
      for (const variant of PROMPT_VARIANTS) {
        const prompt = suite.prompt(t, 'cpp', variant);
        assert.equal(prompt.match(/with no arguments/g)?.length, 1, `${t.id} ${variant}`);
      }
    }
  });

  it('needs no remote service: no URLs or host names other than the loopback', () => {
    for (const t of suite.tasks) {
      for (const s of allText(t)) {
        assert.doesNotMatch(s, /https?:\/\/|www\.|\.com\b|\.org\b|api key|credential/i, `${t.id}: ${s}`);
      }
      if (t.domain === 'Networking') assert.match(t.functionalRequirements.at(-1)!, /127\.0\.0\.1/, `${t.id} demonstrates on the loopback`);
    }
  });

  it('shares no 8-word sequence with the paper prompt files or overview (own words)', requiresShared(SHARED, 'data/envgap-paper/data/prompts'), () => {
    const paper = new Map<string, string>();
    const add = (file: string) => {
      for (const s of shingles(readFileSync(file, 'utf8'), 8)) paper.set(s, path.relative(PROMPTS, file));
    };
    add(path.join(PROMPTS, 'prompt_overview.csv'));
    add(path.join(PROMPTS, 'master_template.md'));
    let files = 0;
    for (const folder of readdirSync(PROMPTS).filter((f) => f.endsWith('_prompts'))) {
      for (const f of readdirSync(path.join(PROMPTS, folder)).filter((f) => /^p_\d+\.md$/.test(f))) {
        add(path.join(PROMPTS, folder, f));
        files++;
      }
    }
    assert.equal(files, 200, 'all 50 prompts in 4 languages were compared');
    const shared: string[] = [];
    for (const t of suite.tasks) {
      for (const s of allText(t)) for (const sh of shingles(s, 8)) if (paper.has(sh)) shared.push(`${t.id}: "${sh}" (${paper.get(sh)})`);
    }
    assert.deepEqual(shared, []);
  });

  it('renders a prompt for every language and variant that carries the task and its requirements', () => {
    const t = suite.tasks[0]!;
    for (const language of ecosystemIds()) {
      const explicit = suite.prompt(t, language, 'explicit');
      const implicit = suite.prompt(t, language, 'implicit');
      for (const p of [explicit, implicit]) {
        assert.ok(p.startsWith(`TASK: ${t.title}\n`));
        for (const r of t.functionalRequirements) assert.ok(p.includes(`- ${r}\n`), r);
      }
      assert.match(explicit, /pinned to an exact version/);
      assert.doesNotMatch(implicit, /pinned/);
    }
  });
});
