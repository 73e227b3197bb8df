// tier: quick
/** The small pieces under the report: docs/paper-data.md §3 normalisation, Python rounding, the CSV reader, the statistics, the tables' labels. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatNumber, formatSignificant, pyFloatRepr, pyRound } from '../../src/report/csv-number.js';
import { averageRanks, median, regularizedIncompleteBeta, spearman, studentTwoSidedP } from '../../src/metrics/stats.js';
import { parseCsv } from '../../src/paper-data/csv.js';
import { dependencySet, isTrue, parseCount } from '../../src/paper-data/envgap-normalise.js';
import { labelledTable } from '../../src/report/labels.js';

describe('docs/paper-data.md §2–§3 cell normalisation', () => {
  it('truth values and counts', () => {
    for (const t of ['True', 'TRUE', ' yes ', '1', 'Success']) assert.equal(isTrue(t), true, t);
    for (const f of ['False', '', 'N/A', 'ok', '0', undefined]) assert.equal(isTrue(f), false, String(f));
    assert.equal(parseCount(' 12 '), 12);
    assert.equal(parseCount('+3'), 3);
    for (const m of ['', 'N/A', '2.0', '3 deps']) assert.equal(parseCount(m), null, m);
  });

  it('Python: specifiers and extras cut, dots kept, `_` → `-`', () => {
    assert.deepEqual(dependencySet('pandas==2.2.2, requests[socks]>=2 ,Flask_Login~=0.6,zope.interface', 'python', 'declared'), [
      'flask-login',
      'pandas',
      'requests',
      'zope.interface',
    ]);
    assert.deepEqual(dependencySet('None', 'python', 'traced'), []);
    assert.deepEqual(dependencySet('numpy,none,N/A,-,,NUMPY', 'python', 'declared'), ['numpy']);
  });

  it('Java: .jar, colon rule (keeps the part before the first colon), version suffix', () => {
    assert.deepEqual(dependencySet('commons-csv-1.10.0.jar', 'java', 'traced'), ['commons-csv']);
    assert.deepEqual(dependencySet('guava-32.1.2-jre', 'java', 'installed'), ['guava']);
    assert.deepEqual(dependencySet('opencsv:5.9', 'java', 'declared'), ['opencsv']);
    assert.deepEqual(dependencySet('com.google.code.gson:gson:2.10', 'java', 'declared'), ['com.google.code.gson']);
    // `.jar` is removed case-sensitively; the version suffix rule then takes `-2.15.2.JAR` whole.
    assert.deepEqual(dependencySet('Tool.JAR,jackson-core-2.15.2.JAR', 'java', 'traced'), ['jackson-core', 'tool.jar']);
  });

  it('JavaScript: names as written (lower-cased), no space splitting', () => {
    assert.deepEqual(dependencySet('@types/Node,chalk', 'javascript', 'declared'), ['@types/node', 'chalk']);
    assert.deepEqual(dependencySet('ajv ajv-formats', 'javascript', 'traced'), ['ajv ajv-formats']);
  });

  it('C++: runtime column stripped of .so and lib, declared column kept', () => {
    assert.deepEqual(dependencySet('libz.so.1,libgssapi_krb5.so.2,libcrypto.so', 'cpp', 'traced'), ['crypto', 'gssapi-krb5', 'z']);
    assert.deepEqual(dependencySet('libsodium,LibArchive,nlohmann_json', 'cpp', 'declared'), ['libarchive', 'libsodium', 'nlohmann-json']);
  });
});

describe('Python round() and float repr', () => {
  it('rounds half to even only on exact binary ties', () => {
    assert.equal(pyRound(0.125, 2), 0.12); // exact tie, 2 is even
    assert.equal(pyRound(0.375, 2), 0.38); // exact tie, 7 is odd
    assert.equal(pyRound(2.675, 2), 2.67); // binary value is below the tie
    assert.equal(pyRound(2.5, 0), 2);
    assert.equal(pyRound(3.5, 0), 4);
    assert.equal(pyRound(-0.125, 2), -0.12);
    assert.equal(pyRound(89.28571428571429, 1), 89.3);
    assert.equal(pyRound(1 / 3, 3), 0.333);
  });

  it('prints like Python', () => {
    assert.equal(pyFloatRepr(100), '100.0');
    assert.equal(pyFloatRepr(0.99), '0.99');
    assert.equal(pyFloatRepr(0), '0.0');
    assert.equal(pyFloatRepr(0.00001), '1e-05');
    assert.equal(pyFloatRepr(1.5e-7), '1.5e-07');
    assert.equal(formatNumber(0.9899999, 3), '0.99');
    assert.equal(formatNumber(0, 1, { int: true }), '0');
    assert.equal(formatNumber(5.5, 1, { int: true }), '5.5');
    assert.equal(formatNumber(null, 1), '');
    assert.equal(formatSignificant(0.000012345, 3), '1.23e-05');
    assert.equal(formatSignificant(0.04639, 3), '0.0464');
  });
});

describe('CSV reader', () => {
  it('quotes, doubled quotes, newlines inside quotes, CRLF, blank lines, start lines', () => {
    const recs = parseCsv('a,b\r\n"x, y","say ""hi"""\n\n"multi\nline",z\n');
    assert.deepEqual(recs, [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x, y', 'say "hi"'] },
      { line: 4, fields: ['multi\nline', 'z'] },
    ]);
    assert.deepEqual(parseCsv('a,b"c,\n'), [{ line: 1, fields: ['a', 'b"c', ''] }]);
  });

  it('rejects text after a closing quote and unclosed quotes', () => {
    assert.throws(() => parseCsv('h\n"a"b\n'), /line|closing quote/);
    assert.throws(() => parseCsv('h\nx\n"open,\n'), (e: { line?: number }) => e.line === 3);
  });
});

describe('statistics', () => {
  it('average ranks and median', () => {
    assert.deepEqual(averageRanks([10, 20, 10, 30, 20]), [1.5, 3.5, 1.5, 5, 3.5]);
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([]), null);
  });

  it('incomplete beta and t p-values against closed forms', () => {
    // I_x(1, 1) = x; I_x(a, 1) = x^a.
    assert.ok(Math.abs(regularizedIncompleteBeta(0.3, 1, 1) - 0.3) < 1e-12);
    assert.ok(Math.abs(regularizedIncompleteBeta(0.6, 3, 1) - 0.216) < 1e-12);
    // df 1 (Cauchy): P(|T| ≥ t) = 1 − (2/π)·atan(t); df 2: 1 − t/√(2 + t²).
    for (const t of [0.3, 1, 2.5, 10]) {
      assert.ok(Math.abs(studentTwoSidedP(t, 1) - (1 - (2 / Math.PI) * Math.atan(t))) < 1e-10, `df1 t=${t}`);
      assert.ok(Math.abs(studentTwoSidedP(t, 2) - (1 - t / Math.sqrt(2 + t * t))) < 1e-10, `df2 t=${t}`);
    }
    // df 30, t = 2.042272456: the 97.5% quantile of Student's t (statistical tables), so p = 0.05.
    assert.ok(Math.abs(studentTwoSidedP(2.042272456, 30) - 0.05) < 1e-8);
  });

  it('Spearman: perfect monotone, constant input, too few points', () => {
    assert.deepEqual(spearman([1, 2, 3, 4], [10, 20, 30, 400]), { n: 4, rho: 1, pValue: 0 });
    assert.equal(spearman([1, 2, 3], [5, 5, 5]).rho, null);
    assert.equal(spearman([1, 2], [1, 2]).rho, null);
  });
});

describe('tables as HTML and Markdown show them', () => {
  it('labels instead of keys, the figures\' language names, and "–" for no value or an empty stratum', () => {
    const inflation = { name: 'inflation', title: 'Inflation', header: ['language', 'n_successful', 'rho_mean', 'rho_median'], rows: [['python', '3', '15.0', '3.0'], ['cpp', '0', '0.0', '']] };
    assert.deepEqual(labelledTable(inflation), {
      ...inflation,
      header: ['Language', 'Successful runs', 'Mean ρ', 'Median ρ'],
      rows: [['Python', '3', '15.0', '3.0'], ['C++', '0', '–', '–']],
    });
    assert.deepEqual(inflation.rows[1], ['cpp', '0', '0.0', ''], 'the CSV\'s table is left as it is');
    const summary = { name: 'summary', title: 'Headline figures', header: ['metric', 'value'], rows: [['cdr_macro_pct', ''], ['tasks_in_domain Data Processing', '10'], ['weakest_domain_claude', 'Games (20.0)']] };
    assert.deepEqual(labelledTable(summary).rows, [
      ['Complete disjointness of declared sets, mean over languages (%)', '–'],
      ['Tasks in the domain Data Processing', '10'],
      ['Weakest domain of claude (its SR(0) %)', 'Games (20.0)'],
    ]);
    const udr = { name: 'udr_pooled', title: 'UDR', header: ['agent', 'language', 'n_tasks', 'with_external_dep', 'udr_pct'], rows: [['all', 'javascript', '4', '1', '25.0'], ['all', 'macro', '', '', '12.5']] };
    assert.deepEqual(labelledTable(udr).rows, [['all agents', 'JavaScript', '4', '1', '25.0'], ['all agents', 'mean over languages', '–', '–', '12.5']]);
  });
});
