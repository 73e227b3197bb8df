// tier: quick
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { owningPackageDir } from '../../../src/ecosystems/javascript/attribute.js';
import { javascriptEcosystem as js } from '../../../src/ecosystems/javascript/index.js';
import type { NpmTreeNode, NpmInstallDetails } from '../../../src/ecosystems/javascript/npm-tree.js';
import type { InstallResult } from '../../../src/ecosystems/types.js';
import { pins, workspace, type Workspace } from './helpers.js';

describe('owningPackageDir', () => {
  const cases: [string, string | undefined][] = [
    ['node_modules/a/index.js', 'node_modules/a'],
    ['node_modules/@s/a/lib/x.js', 'node_modules/@s/a'],
    ['node_modules/a/node_modules/b/index.js', 'node_modules/a/node_modules/b'],
    ['node_modules/a/node_modules/@s/b/package.json', 'node_modules/a/node_modules/@s/b'],
    ['node_modules/@s/a/node_modules/b/c/d.js', 'node_modules/@s/a/node_modules/b'],
    ['node_modules/a/lib/node_modules', 'node_modules/a'],
    ['node_modules/a', undefined],
    ['node_modules/@s', undefined],
    ['node_modules/@s/a', undefined],
    ['node_modules/.package-lock.json', undefined],
    ['node_modules/.bin/tool', undefined],
    ['node_modules/.cache/x/y.js', undefined],
    ['src/index.js', undefined],
    ['node_modules', undefined],
  ];
  for (const [rel, dir] of cases) {
    it(`${rel} → ${dir ?? 'no package'}`, () => {
      assert.equal(owningPackageDir(rel)?.dir, dir);
    });
  }
  it('names a scoped package with its scope', () => {
    assert.equal(owningPackageDir('node_modules/x/node_modules/@s/b/i.js')?.name, '@s/b');
  });
});

describe('attribute: a hand-built node_modules', () => {
  let ws: Workspace;
  let p: (rel: string) => string;
  const install: InstallResult<NpmInstallDetails> = { installed: [], commands: [], durationMs: 0, details: { tree: { name: 'project', dependencies: [] }, problems: [], lsExitCode: 0, unreviewedInstallScripts: [] } };

  before(async () => {
    ws = await workspace({ files: { 'main.js': '', 'local/index.js': '', 'local/package.json': '{"name":"local","version":"0.1.0"}' } });
    p = (rel) => path.join(ws.projectDir, rel);
    const pkg = async (dir: string, json: object, files: string[]) => {
      await mkdir(p(dir), { recursive: true });
      await writeFile(p(`${dir}/package.json`), JSON.stringify(json));
      for (const f of files) {
        await mkdir(path.dirname(p(`${dir}/${f}`)), { recursive: true });
        await writeFile(p(`${dir}/${f}`), '');
      }
    };
    await pkg('node_modules/plain', { name: 'plain', version: '1.0.0' }, ['index.js', 'a.js', 'b.js', 'c.js']);
    await pkg('node_modules/plain/node_modules/inner', { name: 'inner', version: '2.0.0' }, ['lib/x.js']);
    await pkg('node_modules/@scope/pkg', { name: '@scope/pkg', version: '3.0.0' }, ['index.js']);
    await pkg('node_modules/alias', { name: 'real-name', version: '4.0.0' }, ['index.js']);
    await pkg('node_modules/tool', { name: 'tool', version: '5.0.0' }, ['cli.js']);
    await mkdir(p('node_modules/.bin'), { recursive: true });
    await symlink('../tool/cli.js', p('node_modules/.bin/tool'));
    await mkdir(p('node_modules/noversion'), { recursive: true });
    await writeFile(p('node_modules/noversion/index.js'), '');
    await writeFile(p('node_modules/.package-lock.json'), '{}');
    await symlink('../local', p('node_modules/local'));
    const tree: NpmTreeNode = {
      name: 'project',
      dependencies: [{ name: 'local', version: '0.1.0', path: 'node_modules/local', resolved: 'file:../local', dependencies: [] }],
    };
    install.details.tree = tree;
  });
  after(() => ws?.dispose());

  it('maps each file to its innermost package, version from its package.json', async () => {
    const files = new Set([
      p('main.js'),
      '/usr/bin/node',
      '/usr/lib/node_modules/npm/index.js',
      `${ws.projectDir}-sibling/node_modules/x/index.js`,
      p('node_modules/.package-lock.json'),
      p('node_modules/plain'),
      p('node_modules/plain/index.js'),
      p('node_modules/plain/node_modules/inner/lib/x.js'),
      p('node_modules/@scope/pkg/index.js'),
      p('node_modules/alias/index.js'),
      p('node_modules/.bin/tool'),
      p('local/index.js'),
      p('node_modules/noversion/index.js'),
    ]);
    const d3 = await js.attribute(files, ws.ctx, install);
    assert.deepEqual(pins(d3.traced), ['@scope/pkg@3.0.0', 'alias@4.0.0', 'inner@2.0.0', 'local@0.1.0', 'noversion', 'plain@1.0.0', 'tool@5.0.0']);
    assert.equal(d3.traced.find((d) => d.name === 'alias')?.id, 'npm:real-name@4.0.0');
    assert.equal(d3.traced.find((d) => d.name === 'inner')?.source, 'node_modules/plain/node_modules/inner');
    assert.deepEqual(d3.evidence.tool, [p('node_modules/.bin/tool')]);
    assert.deepEqual(d3.evidence.local, [p('local/index.js')]);
  });

  it('keeps at most three files of evidence per package', async () => {
    const files = new Set(['index.js', 'a.js', 'b.js', 'c.js'].map((f) => p(`node_modules/plain/${f}`)));
    const d3 = await js.attribute(files, ws.ctx, install);
    assert.deepEqual(d3.evidence.plain, ['a.js', 'b.js', 'c.js'].map((f) => p(`node_modules/plain/${f}`)));
  });

  it('without the install tree, a linked package\'s real files are the project\'s own', async () => {
    const d3 = await js.attribute(new Set([p('local/index.js')]), ws.ctx, { installed: [], commands: [], durationMs: 0, details: { tree: { name: 'project', dependencies: [] }, problems: [], lsExitCode: 0, unreviewedInstallScripts: [] } });
    assert.deepEqual(d3.traced, []);
  });
});
