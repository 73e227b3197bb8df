// tier: quick
/**
 * Tables B4/B5 (most frequent phantom and hidden packages) against the paper's appendix, read from the seed
 * paper's text in ../shared/seeds at test time. The paper lists five packages per language, ordering ties in no
 * order the data reproduces (e.g. zxing-javase before zxing-core, supports-color before has-flag); envproof's tie
 * rule (docs/report.md) gives equal counts one shared rank. So each listed package must have the paper's count, and
 * the rank the paper's counts imply: 1 + the number of listed packages with a higher count.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { computeAggregate, FREQUENT_GAPS_TOP } from '../../src/metrics/aggregate.js';
import { frequentGaps } from '../../src/metrics/aggregate-sets.js';
import { makeContext } from '../../src/metrics/aggregate-strata.js';
import type { EcosystemId } from '../../src/core/types.js';
import { readEnvgapDir } from '../../src/paper-data/envgap-import.js';
import { SHARED } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const PAPER_TEXT = path.join(SHARED, 'seeds', '000_5429aa440a77b86c.txt');
const PAPER_DATA = path.join(SHARED, 'data', 'envgap-paper');
const LANGUAGES: [string, EcosystemId][] = [
  ['JavaScript', 'javascript'],
  ['Python', 'python'],
  ['Java', 'java'],
  ['C++', 'cpp'],
];

interface Listed {
  name: string;
  runs: number;
}

/** The appendix table's five packages per language, names normalised as the paper's data is (lower case, _ → -). */
function appendixTable(text: string, table: 'B4' | 'B5'): Map<EcosystemId, Listed[]> {
  const start = text.indexOf(`T A B L E ${table} |`);
  const end = table === 'B4' ? text.indexOf('T A B L E B5 |') : text.indexOf(' of 16', start);
  assert.ok(start >= 0 && end > start, `Table ${table} not found in ${PAPER_TEXT}`);
  // The PDF's text breaks "is-fullwidth-code-point" as "is-fullwidth- code-point".
  const body = text.slice(start, end).replace(/- (?=\w)/g, '-');
  const out = new Map<EcosystemId, Listed[]>();
  // "JavaScript" before "Java": the alternation tries the longer name first.
  const re = /(JavaScript|Python|Java|C\+\+) ((?:[\w.-]+ \(\d+\)(?:, )?)+)/g;
  for (const m of body.matchAll(re)) {
    const language = LANGUAGES.find(([label]) => label === m[1])![1];
    const entries = [...m[2]!.matchAll(/([\w.-]+) \((\d+)\)/g)].map((e) => ({ name: e[1]!.toLowerCase().replace(/_/g, '-'), runs: Number(e[2]) }));
    out.set(language, entries);
  }
  assert.equal(out.size, 4, `Table ${table}: four languages`);
  return out;
}

/** Competition rank implied by the paper's own counts (its list is the top of the ranking). */
function paperRank(listed: Listed[], runs: number): number {
  return 1 + listed.filter((l) => l.runs > runs).length;
}

describe("Tables B4/B5 against the paper's appendix", requires("the seed paper's text and data in ../shared", existsSync(PAPER_TEXT) && existsSync(PAPER_DATA)), () => {
  const text = existsSync(PAPER_TEXT) ? readFileSync(PAPER_TEXT, 'utf8') : '';
  const data = existsSync(PAPER_DATA) ? readEnvgapDir(PAPER_DATA) : { runs: [], tasks: [] };
  const full = frequentGaps(makeContext(data.runs, data.tasks), Number.POSITIVE_INFINITY);

  for (const [table, kind] of [
    ['B4', 'phantom'],
    ['B5', 'hidden'],
  ] as const) {
    it(`Table ${table} (${kind}): every listed package with the paper's count and tie-aware rank`, () => {
      const paper = appendixTable(text, table);
      let compared = 0;
      for (const [language, listed] of paper) {
        assert.equal(listed.length, 5, `${table} ${language}: five packages`);
        for (const l of listed) {
          const ours = full.find((g) => g.kind === kind && g.language === language && g.name === l.name);
          if (table === 'B4' && language === 'python' && l.name === 'python-dateutil') {
            // Known deviation (docs/report.md): no successful primary Python run of the published data declares
            // python-dateutil without loading it, so the paper's "python-dateutil (1)" cannot be reproduced.
            assert.equal(ours, undefined);
            continue;
          }
          assert.ok(ours, `${table} ${language} ${l.name} is ${kind} in some run`);
          assert.equal(ours.runs, l.runs, `${table} ${language} ${l.name}: runs`);
          assert.equal(ours.rank, paperRank(listed, l.runs), `${table} ${language} ${l.name}: rank`);
          compared++;
        }
      }
      assert.equal(compared, table === 'B4' ? 19 : 20);
    });
  }

  it('the report lists the first ten of that ranking, with the size of each tie', () => {
    const report = computeAggregate(data.runs, data.tasks);
    for (const kind of ['phantom', 'hidden'] as const) {
      for (const [, language] of LANGUAGES) {
        const ranking = full.filter((g) => g.kind === kind && g.language === language);
        assert.deepEqual(
          report.frequentGaps.filter((g) => g.kind === kind && g.language === language),
          ranking.slice(0, FREQUENT_GAPS_TOP),
        );
        for (const g of ranking) assert.equal(g.tied, ranking.filter((o) => o.runs === g.runs).length);
      }
    }
    // C++ hidden: crypto 16, z 14, then nettle and zstd tied at 6 (rank 3, listed alphabetically), then rank 5.
    const cpp = report.frequentGaps.filter((g) => g.kind === 'hidden' && g.language === 'cpp').map((g) => [g.rank, g.name, g.runs]);
    assert.deepEqual(cpp.slice(0, 5), [
      [1, 'crypto', 16],
      [2, 'z', 14],
      [3, 'nettle', 6],
      [3, 'zstd', 6],
      [5, 'brotlicommon', 5],
    ]);
  });
});
