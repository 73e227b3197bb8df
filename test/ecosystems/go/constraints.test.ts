/**
 * Go imports behind build constraints, on a real audit of the constraints fixture: main.go imports go-cmp (linked,
 * so loaded); internal/term/tcell.go (`//go:build tcell`) alone imports google/uuid and open_windows.go alone
 * imports pkg/errors, so a default linux build never compiles them. Known from the go command: `go list -f
 * '{{.IgnoredGoFiles}}' ./internal/term` gives [open_windows.go tcell.go] on linux/amd64 without -tags.
 * internal/term/term_test.go imports testify, which go.mod does not require: a missing module only a test imports
 * (the build compiles no test, so nothing fetches it).
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../../helpers/cli.js';
import { plannedFix } from '../../helpers/fix-plan.js';
import { FIXTURES } from './helpers.js';

let root: string;
let report: any;
let text: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envproof-go-constraints-'));
  const dir = path.join(root, 'constraints');
  await cp(path.join(FIXTURES, 'constraints'), dir, { recursive: true });
  const r = await runCliAsync(['audit', dir, '--json', '--out', path.join(root, 'report.json'), '--sandbox', 'host', '-q']);
  assert.equal(r.status, 1, r.stderr);
  report = JSON.parse(await readFile(path.join(root, 'report.json'), 'utf8'));
  text = (await runCliAsync(['audit', '--from', path.join(root, 'report.json')])).stdout;
});
after(() => rm(root, { recursive: true, force: true }));

describe('Go imports behind build constraints', () => {
  it('a module imported only in files the build excluded is said to be so, with their constraints', () => {
    const phantom = (name: string) => report.findings.find((f: any) => f.kind === 'phantom' && f.name === name);
    assert.deepEqual(report.layers.traced.map((d: any) => d.name), ['github.com/google/go-cmp']);
    const uuid = phantom('github.com/google/uuid');
    assert.equal(uuid.phantom, 'not-traced');
    assert.deepEqual(uuid.buildConstraints, ['tcell']);
    assert.deepEqual(uuid.importedAt, ['internal/term/tcell.go:5']);
    assert.match(uuid.advice, /^imported only under build constraints the build did not use \(tags: tcell\), at internal\/term\/tcell\.go:5; the build was linux\/amd64, no -tags/);
    assert.doesNotMatch(uuid.advice, /path the traced run did not take/);
    const errors = phantom('github.com/pkg/errors');
    assert.deepEqual(errors.buildConstraints, ['windows']);
    assert.deepEqual(errors.importedAt, ['internal/term/open_windows.go:3']);
    assert.match(text, /imported only under build constraints the build did not use: github\.com\/google\/uuid \(tags: tcell\), github\.com\/pkg\/errors \(tags: windows\)/);
  });

  it('a test\'s import no module provides is missing, as development code: located, never failing', async () => {
    const missing = report.findings.filter((f: any) => f.kind === 'missing');
    assert.deepEqual(missing.map((f: any) => [f.name, f.location, f.importedAt, f.developmentImports, f.runError]), [
      ['github.com/stretchr/testify/assert', { file: 'internal/term/term_test.go', line: 6 }, undefined, ['internal/term/term_test.go:6'], undefined],
    ]);
    const r = await runCliAsync(['audit', '--from', path.join(root, 'report.json'), '-q', '--fail-on', 'missing']);
    assert.equal(r.status, 0, 'a development-only missing module fails no --fail-on kind');
  });

  it('fix --pin --remove-phantom --dry-run plans nothing: the constrained imports are kept, go.mod is pinned and complete', async () => {
    // go.mod requires exactly the three modules the code imports, each at one version; go-cmp is linked (loaded), the
    // other two are imported behind constraints: removing them would break the tcell and Windows builds.
    const plan = await plannedFix(path.join(root, 'report.json'), path.join(root, 'constraints'));
    assert.deepEqual(plan, { edits: [], after: {}, kept: ['phantom github.com/google/uuid', 'phantom github.com/pkg/errors'] });
  });
});
