// tier: quick
/**
 * Go's outputs on hand-written text, no go command: go.mod edits of `envproof fix` (expected texts written out in
 * full, so every byte outside the changed lines is checked), go.sum reading and pruning, the requirement graph,
 * and the import declarations the phantom split reads. The real audit and fix: test/outputs/go.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Dependency } from '../../../src/core/types.js';
import { moduleFacts } from '../../../src/ecosystems/go/component-facts.js';
import { extractGoDeclared } from '../../../src/ecosystems/go/declared.js';
import { parseModuleGraph } from '../../../src/ecosystems/go/graph.js';
import { pruneGoSum, readGoSum } from '../../../src/ecosystems/go/gosum.js';
import { goManifestEditor } from '../../../src/ecosystems/go/manifest-edit.js';
import { fileConstraint } from '../../../src/ecosystems/go/constraints.js';
import { goImports, owningModule, scanGoImports } from '../../../src/ecosystems/go/static-imports.js';
import { buildFindings } from '../../../src/audit/findings.js';
import type { ManifestEdit } from '../../../src/ecosystems/outputs.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** The edited go.mod (and what was refused) for `edits` built from D1 of `goMod`. */
async function edit(goMod: string, edits: (declared: Dependency[]) => ManifestEdit[]) {
  const dir = await mkdtemp(path.join(tmpdir(), 'envproof-gofix-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'go.mod'), goMod);
  const declared = await extractGoDeclared(dir);
  const outcome = await goManifestEditor.apply(dir, declared, edits(declared.declared));
  return { after: outcome.changes[0]?.after ?? goMod, refused: outcome.refused.map((r) => r.reason), applied: outcome.applied.length };
}
const dep = (declared: Dependency[], name: string) => declared.find((d) => d.name === name)!;

describe('go.mod edits', () => {
  const text = [
    'module example.com/m',
    '',
    'go 1.22',
    '',
    'require (',
    '\t// the UUIDs of the API',
    '\tgithub.com/google/uuid v1.6.0',
    '\t"rsc.io/quote"   master   // a branch, not a version',
    ')',
    '',
    'require (',
    '\tgolang.org/x/text v0.3.0 // indirect',
    '\tgolang.org/x/mod v0.1.0 // indirect; needed by a test',
    ')',
    '',
  ].join('\n');

  it('adds where sorted order puts it (above the comment of the next item), drops `// indirect`, pins, removes with its comment', async () => {
    const r = await edit(text, (d) => [
      { kind: 'add', name: 'github.com/a/b', version: 'v1.0.0' },
      { kind: 'add', name: 'github.com/z/z', version: 'v2.0.0+incompatible' },
      { kind: 'add', name: 'golang.org/x/text', version: 'v0.3.7' },
      { kind: 'add', name: 'golang.org/x/mod', version: 'v0.1.0' },
      { kind: 'pin', dependency: dep(d, 'rsc.io/quote'), version: 'v1.5.2' },
      { kind: 'remove', dependency: dep(d, 'github.com/google/uuid') },
    ]);
    assert.deepEqual(r.refused, []);
    assert.equal(r.applied, 6);
    assert.equal(
      r.after,
      [
        'module example.com/m',
        '',
        'go 1.22',
        '',
        'require (',
        '\tgithub.com/a/b v1.0.0',
        '\tgithub.com/z/z v2.0.0+incompatible',
        '\t"rsc.io/quote"   v1.5.2   // a branch, not a version',
        ')',
        '',
        'require (',
        '\tgolang.org/x/text v0.3.7',
        '\tgolang.org/x/mod v0.1.0 // needed by a test',
        ')',
        '',
      ].join('\n'),
    );
  });

  it('keeps CRLF, adds `require` lines after the last single-line require, removes a single-line require', async () => {
    const crlf = ['module m', 'go 1.21', 'require a.example/x v1.0.0 // x', 'require b.example/y v1.0.0', '// the end', ''].join('\r\n');
    const r = await edit(crlf, (d) => [
      { kind: 'remove', dependency: dep(d, 'a.example/x') },
      { kind: 'add', name: 'c.example/z', version: 'v0.2.0' },
    ]);
    assert.equal(r.after, ['module m', 'go 1.21', 'require b.example/y v1.0.0', 'require c.example/z v0.2.0', '// the end', ''].join('\r\n'));
  });

  it('appends a require line to a go.mod without any, and refuses what it cannot do', async () => {
    const r = await edit('module m\n\ngo 1.22', () => [{ kind: 'add', name: 'a.example/x', version: 'v1.0.0' }]);
    assert.equal(r.after, 'module m\n\ngo 1.22\nrequire a.example/x v1.0.0\n');
    const refused = await edit('module m\nrequire a.example/x v1.0.0\n', () => [
      { kind: 'add', name: 'a.example/x', version: 'v1.1.0' },
      { kind: 'add', name: 'b.example/y', version: 'v1.0.0', id: 'b.example/y => c.example/y v1.0.0' },
      { kind: 'add', name: 'z', version: '1.2.13', id: 'zlib1g' }, // a cgo program's libz.so.1
    ]);
    assert.equal(refused.after, 'module m\nrequire a.example/x v1.0.0\n');
    assert.equal(refused.refused.length, 3);
    assert.match(refused.refused[0]!, /go\.mod:2 requires it already/);
    assert.match(refused.refused[1]!, /replaced/);
    assert.match(refused.refused[2]!, /no module version: a system library \(zlib1g\)/);
  });
});

describe('go.sum and the requirement graph', () => {
  const sum = [
    'github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=',
    'github.com/pkg/errors v0.9.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=',
    'rsc.io/sampler v1.3.0 h1:7uVkIFmeBqHfdjD+gZwtXXI+RODJ2Wc4O7MPEh/QiW4=',
    'rsc.io/sampler v1.3.0/go.mod h1:T1hPZKmBbMNahiBKFy5HrXp6adAjACjK9JXDnKaTXpA=',
    'rsc.io/sampler v1.2.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    '',
  ].join('\n');

  it('reads the module and go.mod hashes, and prunes versions outside the graph byte for byte', () => {
    assert.deepEqual(readGoSum(sum).get('rsc.io/sampler@v1.3.0'), {
      module: 'h1:7uVkIFmeBqHfdjD+gZwtXXI+RODJ2Wc4O7MPEh/QiW4=',
      goMod: 'h1:T1hPZKmBbMNahiBKFy5HrXp6adAjACjK9JXDnKaTXpA=',
    });
    const lines = sum.split('\n');
    assert.equal(pruneGoSum(sum, new Set(['rsc.io/sampler@v1.3.0'])), `${lines[2]}\n${lines[3]}\n`);
  });

  it('gives purls of the code used (Debian\'s for a cgo library), go.sum as properties, and edges to the selected versions', () => {
    const graph = parseModuleGraph(
      ['example.com/m rsc.io/quote@v1.5.2', 'example.com/m go@1.22', 'rsc.io/quote@v1.5.2 rsc.io/sampler@v1.2.0', 'rsc.io/sampler@v1.2.0 golang.org/x/text@v0.3.0', ''].join('\n'),
    );
    const installed = [
      { name: 'rsc.io/quote', version: 'v1.5.3', id: 'rsc.io/quote => example.org/quote v1.5.3' },
      { name: 'rsc.io/sampler', version: 'v1.3.0' },
      { name: 'github.com/pkg/errors', version: 'v0.9.1' },
    ];
    const modules = [
      { Path: 'rsc.io/quote', Version: 'v1.5.2', Replace: { Path: 'example.org/quote', Version: 'v1.5.3' } },
      { Path: 'rsc.io/sampler', Version: 'v1.3.0' },
      { Path: 'github.com/pkg/errors', Version: 'v0.9.1' },
    ];
    const libz = { name: 'z', version: '1.2.13', id: 'zlib1g', systemVersion: '1:1.2.13.dfsg-1', files: ['/usr/lib/x86_64-linux-gnu/libz.so.1'] };
    const facts = moduleFacts(installed, modules, graph, sum, [libz]);
    const [quote, sampler, errors, z] = facts.components;
    assert.deepEqual(z!.purl, { type: 'deb', namespace: 'debian', name: 'zlib1g', version: '1:1.2.13.dfsg-1', qualifiers: { arch: 'amd64' } }, 'a cgo library by its Debian package');
    assert.deepEqual(quote!.purl, { type: 'golang', namespace: 'example.org', name: 'quote', version: 'v1.5.3' });
    assert.deepEqual(quote!.dependsOn, ['rsc.io/sampler@v1.3.0'], 'the edge goes to the selected version');
    assert.equal(quote!.properties, undefined, 'go.sum has no line of the replacement');
    assert.deepEqual(sampler!.properties, { 'go.sum': 'h1:7uVkIFmeBqHfdjD+gZwtXXI+RODJ2Wc4O7MPEh/QiW4=', 'go.sum/go.mod': 'h1:T1hPZKmBbMNahiBKFy5HrXp6adAjACjK9JXDnKaTXpA=' });
    assert.deepEqual(sampler!.hashes, [], 'an h1: dirhash is no CycloneDX file hash');
    assert.deepEqual(sampler!.dependsOn, [], 'the graph holds no requirement of sampler v1.3.0 itself');
    assert.deepEqual(errors!.purl, { type: 'golang', namespace: 'github.com/pkg', name: 'errors', version: 'v0.9.1' });
  });
});

describe('Go import declarations', () => {
  it('reads single, grouped, named, dot and blank imports, skipping comments and what follows the imports', () => {
    const source = [
      '// Package p. import "not/this"', // 1
      '/* import "nor/this" */ package p', // 2
      '', // 3
      'import "fmt"', // 4
      'import alias "example.com/a/v2/sub"; import . `example.com/dot`', // 5
      'import (', // 6
      '\t_ "example.com/blank" // import "no"', // 7
      '\t/* x */ "example.com/b"', // 8
      '\t"C"', // 9
      ')', // 10
      'import ()', // 11
      'var s = `import "late"`', // 12
      'func f() { _ = "import \\"x\\"" }', // 13
    ].join('\n');
    assert.deepEqual(
      goImports(source).map((i) => [i.path, source.slice(0, i.offset).split('\n').length]),
      [
        ['fmt', 4],
        ['example.com/a/v2/sub', 5],
        ['example.com/dot', 5],
        ['example.com/blank', 7],
        ['example.com/b', 8],
        ['C', 9],
      ],
    );
  });

  it('owns an import path by the longest module path that prefixes it at a slash', () => {
    const modules = ['example.com/a', 'example.com/a/v2', 'example.com/ab'];
    assert.equal(owningModule('example.com/a/v2/sub', modules), 'example.com/a/v2');
    assert.equal(owningModule('example.com/a/sub', modules), 'example.com/a');
    assert.equal(owningModule('example.com/abc', modules), undefined);
    assert.equal(owningModule('fmt', modules), undefined);
  });
});

describe('build constraints of a file', () => {
  it('its //go:build line (else legacy +build lines) and its GOOS/GOARCH name suffix', () => {
    assert.equal(fileConstraint('tcell.go', '// Copyright\n//go:build tcell\n\npackage term\n'), 'tcell');
    assert.equal(fileConstraint('open_windows.go', 'package term\n'), 'windows');
    assert.equal(fileConstraint('sys_linux_arm64.go', 'package term\n'), 'linux && arm64');
    assert.equal(fileConstraint('x_amd64_test.go', 'package term\n'), 'amd64');
    assert.equal(fileConstraint('cgo_darwin.go', '// +build cgo\n\npackage term\n'), 'cgo && darwin');
    // After the package clause a //go:build line is no constraint; `_bar` is no platform.
    assert.equal(fileConstraint('foo_bar.go', 'package term\n//go:build tcell\n'), 'a build constraint');
  });
});

describe('Go imports no module provides', () => {
  it('are unresolved, with their sites; the standard library and owned paths are not; tests are development code', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'envproof-go-missing-'));
    dirs.push(dir);
    const files: Record<string, string> = {
      'main.go': 'package main\n\nimport (\n\t"fmt"\n\t"example.com/own/internal/x"\n\t"github.com/google/go-cmp/cmp"\n\t"github.com/absent/lib/sub"\n)\n',
      'main_test.go': 'package main\n\nimport "github.com/stretchr/testify/assert"\n',
      'id_test.go': 'package main\n\nimport "github.com/google/uuid"\n',
    };
    for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
    const found = await scanGoImports(dir, ['github.com/google/go-cmp', 'github.com/google/uuid'], new Set(['example.com/own']));
    // Lines counted by hand: the grouped import's fourth path is on line 7; main_test.go's import on line 3.
    assert.deepEqual(found.unresolved, { 'github.com/absent/lib/sub': ['main.go:7'], 'github.com/stretchr/testify/assert': ['main_test.go:3'] });
    assert.deepEqual(found.imports, { 'github.com/google/go-cmp': ['main.go:6'], 'github.com/google/uuid': ['id_test.go:3'] });
    const findings = buildFindings({ manifest: 'go.mod', declared: [], installed: [], traced: [], gaps: { phantom: ['github.com/google/uuid'], hidden: [], bloat: [], transitive: [] }, unpinned: [], locations: {}, staticImports: found });
    // A module only tests import stays in go.mod (go mod tidy keeps it); Go has no development group to move it to.
    const uuid = findings.find((f) => f.kind === 'phantom')!;
    assert.deepEqual([uuid.phantom, uuid.developmentImports], ['unused', ['id_test.go:3']]);
    assert.match(uuid.advice, /only development code imports it \(id_test\.go:3\): go\.mod lists the modules tests import too .*: keep it$/);
    const missing = findings.filter((f) => f.kind === 'missing');
    assert.deepEqual(missing.map((f) => [f.name, f.location, f.importedAt ?? null, f.developmentImports ?? null]), [
      ['github.com/absent/lib/sub', { file: 'main.go', line: 7 }, ['main.go:7'], null],
      ['github.com/stretchr/testify/assert', { file: 'main_test.go', line: 3 }, null, ['main_test.go:3']],
    ]);
  });
});
