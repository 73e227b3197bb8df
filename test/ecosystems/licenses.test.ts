// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pythonLicense, spdxExpression } from '../../src/ecosystems/licenses.js';

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
