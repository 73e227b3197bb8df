/**
 * What `envproof fix` must leave alone on an npm project, end to end with the real npm and tracer (fixture
 * `advice`, pinned by its lockfile). Known by hand from package-lock.json and the files:
 * - chalk `^4.1.2` is declared and installed top-level at 4.1.2; log-symbols 1.0.2 brings its own chalk 1.1.3,
 *   nested under node_modules/log-symbols. The pin is 4.1.2 (pinning 1.1.3 would downgrade chalk).
 * - `bin/advice-cli` (no extension, a node shebang, named by package.json bin) requires minimist; the traced run
 *   (`node main.js`) does not start it, so minimist is imported on an untraced path: kept.
 * - babel-plugin-transform-remove-console is named only in .babelrc (as `transform-remove-console`),
 *   eslint-plugin-no-only-tests only in package.json eslintConfig (as `no-only-tests`), left-pad only through
 *   require.resolve in lib/pad-path.js: loaded by discovery, kept. ms is named nowhere: removed.
 * - is-odd is a devDependency (lockfile `dev: true`, with its is-number): declared outside D1, and the production-only
 *   D2 leaves both out.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../../helpers/cli.js';
import { plannedFix } from '../../helpers/fix-plan.js';
import { FIXTURES } from './helpers.js';

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('advice: fix never breaks the npm project', () => {
  let root: string;
  let dir: string;
  let report: any;
  let reportFile: string;
  let lock: { packages: Record<string, { version: string; dev?: boolean }> };
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'envproof-advice-'));
    dir = path.join(root, 'advice');
    await cp(path.join(FIXTURES, 'advice'), dir, { recursive: true });
    lock = JSON.parse(await readFile(path.join(dir, 'package-lock.json'), 'utf8'));
    const r = await runCliAsync(['audit', dir, '--json', '--sandbox', 'host', '-q']);
    report = JSON.parse(r.stdout);
    reportFile = path.join(root, 'report.json');
    await writeFile(reportFile, r.stdout);
  });
  after(() => rm(root, { recursive: true, force: true }));

  const finding = (kind: string, name: string) => report.findings.find((f: any) => f.kind === kind && f.name === name);

  it('the fixture has the nested older copy the wrong pin would take', () => {
    assert.equal(lock.packages['node_modules/chalk']!.version, '4.1.2');
    assert.equal(lock.packages['node_modules/log-symbols/node_modules/chalk']!.version, '1.1.3');
  });

  it('unpinned chalk says the version its declaration resolved to, the top-level 4.1.2', () => {
    assert.equal(finding('unpinned', 'chalk').version, '4.1.2');
    assert.equal(finding('hidden', 'supports-color')?.version, lock.packages['node_modules/supports-color']!.version, 'a hidden one too: the top-level copy');
  });

  it('the bin without an extension is read: minimist is imported on an untraced path', () => {
    const f = finding('phantom', 'minimist');
    assert.equal(f.phantom, 'not-traced');
    assert.deepEqual(f.importedAt, ['bin/advice-cli:2']);
  });

  it('plug-ins named in config and require.resolve targets are loaded by discovery, with the rule and the line', async () => {
    const pkg = await readFile(path.join(dir, 'package.json'), 'utf8');
    const expected = {
      'babel-plugin-transform-remove-console': { rule: 'babel-config', evidence: '.babelrc:2' },
      'eslint-plugin-no-only-tests': { rule: 'eslint-config', evidence: `package.json:${lineOf(pkg, '["no-only-tests"]')}` },
      'left-pad': { rule: 'require-resolve', evidence: 'lib/pad-path.js:2' },
    };
    for (const [name, discovery] of Object.entries(expected)) {
      const f = finding('phantom', name);
      assert.equal(f.phantom, 'discovered', name);
      assert.deepEqual(f.discovery, discovery, name);
      assert.match(f.advice, /not imported, loaded by discovery.*keep it/);
    }
    assert.equal(finding('phantom', 'ms').phantom, 'unused');
  });

  it('devDependencies: declared outside D1, not installed-but-undeclared; the production-only D2 beside the paper\'s', async () => {
    const dev = Object.entries(lock.packages).filter(([k, v]) => k && v.dev).map(([k]) => k.replace(/^.*node_modules\//, '')).sort();
    assert.deepEqual(dev, ['is-number', 'is-odd']);
    const all = Object.keys(lock.packages).filter(Boolean).length;
    assert.equal(report.layerCounts.installed.entries, all);
    assert.deepEqual(report.productionOnly.count, { entries: all - dev.length, names: report.layerCounts.installed.names - dev.length });
    assert.deepEqual(report.productionOnly.installed.filter((d: any) => dev.includes(d.name)), []);
    assert.ok(report.gaps.transitive.includes('is-odd'), "the paper's D2 \\ D1 is unchanged");
    assert.equal(finding('transitive', 'is-odd').declaredIn, 'devDependencies');
    assert.doesNotMatch(finding('transitive', 'is-odd').advice, /not declared/);
    assert.equal(finding('transitive', 'is-number').declaredIn, undefined, 'is-number is declared nowhere');

    const text = (await runCliAsync(['audit', '--from', reportFile, '-q'])).stdout;
    assert.match(text, /Declared outside D1\n {2}devDependencies: is-odd 3\.0\.1 \(installed\)/);
    const transitive = /^ {2}transitive .*$/m.exec(text)![0];
    assert.doesNotMatch(transitive, /is-odd/);
    assert.match(text, new RegExp(`production only .*D2 \\(${all - dev.length} entries, ${report.layerCounts.installed.names - dev.length} names\\)`));
    const md = (await runCliAsync(['audit', '--from', reportFile, '-q', '--format', 'markdown'])).stdout;
    assert.match(md, new RegExp(`Production only .*D2 ${report.layerCounts.installed.names - dev.length}, inflation`));
  });

  it('fix --pin --remove-phantom --dry-run: pins 4.x, removes only ms, and says each reason once', async () => {
    const r = await runCliAsync(['fix', '--from', reportFile, '--pin', '--remove-phantom', '--dry-run', '--sandbox', 'host']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^-\s+"chalk": "\^4\.1\.2",$/m);
    assert.match(r.stdout, /^\+\s+"chalk": "4\.1\.2",$/m);
    // Removed: on a - line of the diff and on no + line (a line that only lost its comma is on both).
    const names = (sign: string) => new Set([...r.stdout.matchAll(new RegExp(`^\\${sign}\\s+"([^"]+)":`, 'gm'))].map((m) => m[1]!));
    const added = names('+');
    assert.deepEqual([...names('-')].filter((n) => !added.has(n)), ['ms']);
    for (const kept of ['minimist', 'babel-plugin-transform-remove-console', 'eslint-plugin-no-only-tests', 'left-pad']) {
      assert.match(r.stderr, new RegExp(`left alone: [^\\n]*${kept}`), kept);
    }
    const minimist = /left alone: minimist .*$/m.exec(r.stderr)![0];
    assert.equal(minimist.split('bin/advice-cli:2').length, 2, `the import site once: ${minimist}`);
    assert.equal(minimist.split('the code imports it').length, 2, `the reason once: ${minimist}`);
    assert.equal(await readFile(path.join(dir, 'package.json'), 'utf8'), await readFile(path.join(FIXTURES, 'advice', 'package.json'), 'utf8'), 'a dry run writes nothing');
  });

  it('fix --dry-run plans exactly what a maintainer would: pin chalk to 4.1.2, drop ms, nothing else', async () => {
    // By hand from the fixture: main.js requires only chalk and log-symbols (declared), so every hidden package is
    // theirs (transitive: not added); chalk is the only range; of the phantoms only ms is named nowhere. Removing
    // the last member takes the comma off the one before it.
    const plan = await plannedFix(reportFile, dir);
    assert.deepEqual(plan.edits, ['pin chalk 4.1.2', 'remove ms']);
    const original = await readFile(path.join(dir, 'package.json'), 'utf8');
    const want = original.replace('"chalk": "^4.1.2"', '"chalk": "4.1.2"').replace('"minimist": "1.2.8",\n    "ms": "2.1.3"\n', '"minimist": "1.2.8"\n');
    assert.notEqual(want, original);
    assert.deepEqual(plan.after, { 'package.json': want });
    assert.deepEqual(plan.kept.filter((k) => k.startsWith('phantom')), ['phantom babel-plugin-transform-remove-console', 'phantom eslint-plugin-no-only-tests', 'phantom left-pad', 'phantom minimist']);
    assert.ok(plan.kept.filter((k) => k.startsWith('hidden')).length > 0 && report.findings.filter((f: any) => f.kind === 'hidden').every((f: any) => f.hidden === 'transitive'), 'the hidden ones are all transitive, and kept');
  });
});
