/**
 * fix's "left alone" lines: one per kind and reason, naming every package it applies to, so no reason is printed
 * twice. From a saved report written by hand (nothing is installed): two phantoms ignored by the configuration,
 * one imported on an untraced path, one loaded by discovery.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUDIT_SCHEMA_VERSION } from '../../src/audit/report.js';
import { runCliAsync } from '../helpers/cli.js';

describe('fix: left alone, each reason once', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'envproof-left-alone-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('groups the packages that share a reason; an import site and a discovery rule are said once', async () => {
    const dir = path.join(root, 'project');
    await mkdir(dir);
    const pkg = { name: 'p', version: '1.0.0', dependencies: { a: '1.0.0', b: '1.0.0', c: '1.0.0', d: '1.0.0' } };
    await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    const phantom = (name: string, extra: object) => ({ kind: 'phantom', name, location: { file: 'package.json', line: 4 }, ...extra });
    const report = {
      schemaVersion: AUDIT_SCHEMA_VERSION,
      project: dir,
      ecosystem: 'javascript',
      manifest: 'package.json',
      layers: { declared: ['a', 'b', 'c', 'd'].map((name) => ({ name, version: '1.0.0' })), installed: [], traced: [] },
      components: [],
      findings: [
        phantom('a', { phantom: 'unused', advice: 'remove it', ignored: true }),
        phantom('b', { phantom: 'unused', advice: 'remove it', ignored: true }),
        phantom('c', { phantom: 'not-traced', importedAt: ['bin/cli:2'], advice: 'the code imports it (bin/cli:2) on a path the traced run did not take: trace it' }),
        phantom('d', { phantom: 'discovered', discovery: { rule: 'babel-config', evidence: '.babelrc:2' }, advice: 'not imported, loaded by discovery (babel-config, .babelrc:2): keep it' }),
      ],
      runs: [{ command: 'node main.js', started: true, success: true }],
    };
    const file = path.join(root, 'report.json');
    await writeFile(file, JSON.stringify(report));
    const r = await runCliAsync(['fix', '--from', file, '--remove-phantom', '--dry-run', '--sandbox', 'host']);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('left alone:'));
    assert.deepEqual(lines, [
      'left alone: a, b (phantom): ignored by the configuration',
      'left alone: c (phantom): the code imports it (bin/cli:2) on a path the traced run did not take: trace it',
      'left alone: d (phantom): not imported, loaded by discovery (babel-config, .babelrc:2): keep it',
    ]);
    assert.match(r.stderr, /nothing to change in the manifest/);
  });
});
