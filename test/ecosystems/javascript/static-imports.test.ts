// tier: quick
/**
 * Which files the static-import reader reads: JavaScript extensions, and also whatever package.json names as code
 * (bin, main, exports, the file a script hands to node) and any file with a node shebang, extension or not
 * (http-server's `bin/http-server`). Other files and symbolic links leaving the project are not read.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nodeScriptFiles, packageEntryFiles } from '../../../src/ecosystems/javascript/entry-files.js';
import { scanJsImports, splitOptional, unresolvedPackages } from '../../../src/ecosystems/javascript/static-imports.js';

describe('static imports: files without a JavaScript extension', () => {
  let dir: string;
  let outside: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'envproof-js-imports-'));
    outside = await mkdtemp(path.join(tmpdir(), 'envproof-js-outside-'));
    const files: Record<string, string> = {
      'package.json': JSON.stringify({
        name: 'p',
        bin: { p: './bin/p' },
        main: 'lib/main',
        exports: { '.': { require: './lib/main', import: './esm/entry' }, './feature/*': './features/*.js' },
        scripts: { build: 'node --no-warnings scripts/build && echo done', lint: 'eslint .' },
      }),
      'bin/p': "require('minimist');\n",
      'lib/main': "module.exports = require('chalk');\n",
      'esm/entry': "import opener from 'opener';\n",
      'scripts/build': "\nrequire('left-pad');\n",
      'tools/gen': "#!/usr/bin/env node\nrequire('ms');\n",
      'tools/gen.sh': "#!/bin/sh\necho require('debug')\n",
      'README': "require('not-code')\n",
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    await chmod(path.join(dir, 'tools/gen'), 0o755);
    await writeFile(path.join(outside, 'secret'), "#!/usr/bin/env node\nrequire('outside-pkg');\n");
    await symlink(path.join(outside, 'secret'), path.join(dir, 'tools/linked'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('reads what package.json names and node shebang files, with their lines; nothing else', async () => {
    const result = await scanJsImports(dir);
    assert.deepEqual(result.imports, {
      minimist: ['bin/p:1'],
      chalk: ['lib/main:1'],
      opener: ['esm/entry:1'],
      'left-pad': ['scripts/build:2'],
      ms: ['tools/gen:2'],
    });
    assert.deepEqual(result.notes, [
      'read as JavaScript without a JavaScript extension (named by package.json or a node shebang): bin/p, esm/entry, lib/main, scripts/build, tools/gen',
    ]);
  });

  it('names: exports leaves without patterns, node script arguments, never a path leaving the project', () => {
    assert.deepEqual(nodeScriptFiles('node --no-warnings scripts/build && node ./x.js; nodemon y; node -e "1"'), ['scripts/build', './x.js']);
    assert.deepEqual(packageEntryFiles({ bin: '../escape', main: '/abs', exports: ['./a', { b: './sub/../b', p: './package.json' }], scripts: { s: 'node c' } }), ['a', 'b', 'c']);
    assert.deepEqual(packageEntryFiles({ main: 'build/Release/addon.node' }), []);
  });
});

describe('static imports: packages nothing installed provides', () => {
  it('are unresolved unless installed, typed by an installed @types/ stub, or the project\'s own', () => {
    const imports = { chalk: ['a.js:1'], httpx: ['a.js:2'], '@scope/lib': ['a.js:3'], '@scope/typed': ['b.ts:1'], own: ['c.js:1'], '#internal': ['d.js:1'] };
    const provided = new Set(['chalk', '@types/scope__typed', 'own']);
    assert.deepEqual(unresolvedPackages(imports, provided), { httpx: ['a.js:2'], '@scope/lib': ['a.js:3'] });
  });

  it('one imported only inside try blocks is optional; one imported anywhere else is missing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'envproof-js-optional-'));
    try {
      const source = [
        "try { require('fsevents'); } catch {}", // 1
        'let color;', // 2
        'try {', // 3
        "  color = require('supports-color');", // 4
        '} catch (e) {', // 5
        "  color = require('chalk');", // 6: in the catch block, not the try block
        '}', // 7
        "const x = require('left-pad');", // 8
      ].join('\n');
      await writeFile(path.join(dir, 'a.js'), source);
      await writeFile(path.join(dir, 'b.js'), "require('supports-color');\n");
      const split = await splitOptional(dir, { fsevents: ['a.js:1'], 'supports-color': ['a.js:4'], chalk: ['a.js:6'], 'left-pad': ['a.js:8'], both: ['a.js:4', 'b.js:1'] });
      assert.deepEqual(split, { required: { chalk: ['a.js:6'], 'left-pad': ['a.js:8'], both: ['a.js:4', 'b.js:1'] }, optional: ['fsevents', 'supports-color'] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
