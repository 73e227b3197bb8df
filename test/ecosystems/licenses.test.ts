// tier: quick
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { licenseOfText, mavenLicense, pythonLicense, spdxExpression } from '../../src/ecosystems/licenses.js';
import { chainLicenses, pomPath } from '../../src/ecosystems/java/licenses.js';

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

  it('Maven: <licenses> by name or URL as SPDX ids, several as a choice (OR), an unknown one as named', () => {
    // The names and URLs as Apache's, Jackson's, JUnit's, Logback's and Hamcrest's POMs write them.
    assert.deepEqual(mavenLicense([{ name: 'The Apache Software License, Version 2.0', url: 'http://www.apache.org/licenses/LICENSE-2.0.txt' }]), { license: 'Apache-2.0' });
    assert.deepEqual(mavenLicense([{ name: 'Apache License, Version 2.0' }]), { license: 'Apache-2.0' });
    assert.deepEqual(mavenLicense([{ name: 'Apache-2.0' }]), { license: 'Apache-2.0' });
    assert.deepEqual(mavenLicense([{ name: 'Eclipse Public License 1.0', url: 'http://www.eclipse.org/legal/epl-v10.html' }]), { license: 'EPL-1.0' });
    assert.deepEqual(mavenLicense([{ name: 'Eclipse Public License - v 2.0' }]), { license: 'EPL-2.0' });
    assert.deepEqual(mavenLicense([{ name: 'New BSD License' }]), { license: 'BSD-3-Clause' });
    assert.deepEqual(mavenLicense([{ name: 'The MIT License' }]), { license: 'MIT' });
    // A name that says nothing exact is recognised by its URL only.
    assert.deepEqual(mavenLicense([{ name: 'MIT-style', url: 'https://opensource.org/licenses/MIT' }]), { license: 'MIT' });
    // Logback: EPL 1.0 or LGPL 2.1, the second known by no rule here: both named, the first with its id.
    assert.deepEqual(mavenLicense([{ name: 'Eclipse Public License - v 1.0', url: 'http://www.eclipse.org/legal/epl-v10.html' }, { name: 'GNU Lesser General Public License', url: 'http://www.gnu.org/licenses/old-licenses/lgpl-2.1.html' }]), {
      namedLicenses: [
        { name: 'Eclipse Public License - v 1.0', url: 'http://www.eclipse.org/legal/epl-v10.html', id: 'EPL-1.0' },
        { name: 'GNU Lesser General Public License', url: 'http://www.gnu.org/licenses/old-licenses/lgpl-2.1.html' },
      ],
    });
    assert.deepEqual(mavenLicense([{ name: 'MIT License' }, { name: 'Apache License 2.0' }]), { license: '(MIT OR Apache-2.0)' });
    assert.deepEqual(mavenLicense([{ name: 'BSD License' }]), { namedLicenses: [{ name: 'BSD License' }] });
    assert.deepEqual(mavenLicense([{ url: 'https://example.org/license' }]), { namedLicenses: [{ name: 'https://example.org/license', url: 'https://example.org/license' }] });
    assert.deepEqual(mavenLicense([]), {});
  });

  it('Maven: a POM without <licenses> takes its parent\'s, up the chain, one read per level', async () => {
    const pom = (body: string) => `<project><modelVersion>4.0.0</modelVersion>${body}</project>`;
    const parentOf = (c: string) => { const [g, a, v] = c.split(':'); return `<parent><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></parent>`; };
    const repo: Record<string, string> = {
      'org.apache.commons:commons-lang3:3.14.0': pom(`${parentOf('org.apache.commons:commons-parent:64')}<artifactId>commons-lang3</artifactId>`),
      'org.apache.commons:commons-parent:64': pom(parentOf('org.apache:apache:30')),
      'org.apache:apache:30': pom('<licenses><license><name>Apache-2.0</name></license></licenses>'),
      'demo:own:1': pom(`${parentOf('demo:parent:1')}<licenses><license><name>Custom Terms</name><url>https://example.org/terms</url></license></licenses>`),
      'demo:orphan:1': pom(parentOf('demo:absent:1')),
      'demo:broken:1': '<project><unclosed></project>',
    };
    const reads: string[][] = [];
    const read = async (cs: string[]) => (reads.push(cs), new Map(cs.filter((c) => repo[c]).map((c) => [c, repo[c]!])));
    const got = await chainLicenses(['org.apache.commons:commons-lang3:3.14.0', 'demo:own:1', 'demo:orphan:1', 'demo:broken:1'], read);
    assert.deepEqual(Object.fromEntries(got), {
      'org.apache.commons:commons-lang3:3.14.0': { license: 'Apache-2.0' },
      // Its own <licenses> wins: the parent is never read.
      'demo:own:1': { namedLicenses: [{ name: 'Custom Terms', url: 'https://example.org/terms' }] },
    });
    assert.deepEqual(reads, [['org.apache.commons:commons-lang3:3.14.0', 'demo:own:1', 'demo:orphan:1', 'demo:broken:1'], ['org.apache.commons:commons-parent:64', 'demo:absent:1'], ['org.apache:apache:30']]);
    assert.equal(pomPath('org.apache.commons:commons-parent:64'), 'org/apache/commons/commons-parent/64/commons-parent-64.pom');
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
