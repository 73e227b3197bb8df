// tier: quick
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { licenseOfText, pythonLicense, spdxExpression } from '../../src/ecosystems/licenses.js';

describe('licenses from installed metadata', () => {
  it('takes a field that reads as an SPDX expression, never a pointer or free text', () => {
    assert.equal(spdxExpression('MIT'), 'MIT');
    assert.equal(spdxExpression(' (MIT OR Apache-2.0) '), '(MIT OR Apache-2.0)');
    assert.equal(spdxExpression('GPL-2.0-or-later WITH Classpath-exception-2.0'), 'GPL-2.0-or-later WITH Classpath-exception-2.0');
    for (const text of ['SEE LICENSE IN LICENSE.md', 'UNLICENSED', 'BSD License', '(MIT', 'MIT OR', '', undefined]) assert.equal(spdxExpression(text), undefined, String(text));
  });

  it('Python: License-Expression, else classifiers that each name one license, else a License field that is an id', () => {
    // six 1.17.0 and tabulate 0.9.0 declare MIT both ways; python-dateutil 2.9.0.post0 offers Apache or "BSD License".
    const mitClassifier = 'License :: OSI Approved :: MIT License';
    assert.equal(pythonLicense({ license: 'MIT', classifier: [mitClassifier, 'Programming Language :: Python :: 3'] }), 'MIT');
    assert.equal(pythonLicense({ license: 'Dual License', classifier: ['License :: OSI Approved :: BSD License', 'License :: OSI Approved :: Apache Software License'] }), undefined);
    assert.equal(pythonLicense({ license_expression: 'BSD-3-Clause', classifier: ['License :: OSI Approved :: BSD License'] }), 'BSD-3-Clause');
    assert.equal(pythonLicense({ classifier: [mitClassifier, 'License :: OSI Approved :: Apache Software License'] }), '(MIT OR Apache-2.0)');
    assert.equal(pythonLicense({ license: 'bsd-3-clause' }), 'BSD-3-Clause');
    assert.equal(pythonLicense({ license: 'Copyright (c) the authors; all rights reserved' }), undefined);
  });
});

describe('license files', () => {
  // envproof's own node_modules (pinned by package-lock.json): each package's LICENSE file against its package.json.
  it('identifies MIT, Apache-2.0, BSD-3-Clause and ISC files, and never names another license', () => {
    const root = path.resolve('node_modules');
    const counts: Record<string, { same: number; none: number }> = {};
    const wrong: string[] = [];
    for (const top of readdirSync(root)) {
      for (const dir of top.startsWith('@') ? readdirSync(path.join(root, top)).map((d) => `${top}/${d}`) : [top]) {
        const manifest = path.join(root, dir, 'package.json');
        const license = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { license?: unknown }).license : undefined;
        const file = ['LICENSE', 'LICENSE.txt', 'LICENSE.md'].map((f) => path.join(root, dir, f)).find((f) => existsSync(f));
        // Only single-license packages: a dual-licensed package's file holds one of its licenses.
        if (typeof license !== 'string' || !/^[\w.-]+$/.test(license) || !file) continue;
        const found = licenseOfText(readFileSync(file, 'utf8'));
        const c = (counts[license] ??= { same: 0, none: 0 });
        if (found === license) c.same++;
        else if (found === undefined) c.none++;
        else wrong.push(`${dir}: ${license}, read as ${found}`);
      }
    }
    assert.deepEqual(wrong, []);
    for (const id of ['MIT', 'Apache-2.0', 'BSD-3-Clause', 'ISC']) assert.ok((counts[id]?.same ?? 0) >= 5, `${id}: ${JSON.stringify(counts[id])}`);
    for (const id of ['BSD-2-Clause', '0BSD', 'Unlicense']) assert.equal(counts[id]?.same ?? 0, 0, id);
  });
});
