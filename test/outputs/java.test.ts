/**
 * The audit's outputs and `envproof fix` on the Maven fixture (java-fix: CRLF line endings and tabs), one audit.
 * Known by hand: jackson-databind 2.17.2 depends on jackson-annotations and jackson-core 2.17.2; App uses gson,
 * jackson-databind and jackson-core; commons-lang3 is never used.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../helpers/cli.js';
import { assertValidCycloneDx, assertValidSpdx } from './schemas.js';
import { auditFixture, checkFix, checkGithubAndMarkdown, checkSarif, checkSbom, type AuditedFixture, type ExpectedOutputs } from './helpers.js';

const LOADED = ['gson@2.10.1', 'jackson-annotations@2.17.2', 'jackson-core@2.17.2', 'jackson-databind@2.17.2'];
const expected: ExpectedOutputs = {
  manifest: 'pom.xml',
  installed: ['commons-lang3@3.14.0', ...LOADED],
  loaded: LOADED,
  loadedFiles: Object.fromEntries(LOADED.map((k) => [k.split('@')[0]!, new RegExp(`^\\$ENVPROOF_ENV/java/deps/${k.replace('@', '-')}\\.jar$`)])),
  edges: [
    ['jackson-databind@2.17.2', 'jackson-annotations@2.17.2'],
    ['jackson-databind@2.17.2', 'jackson-core@2.17.2'],
  ],
  hashes: true,
  // From each POM's <licenses>, else its parents' (read by hand in the local repository): commons-lang3 3.14.0 and
  // commons-parent 64 name none, org.apache:apache 30 names "Apache-2.0"; Jackson's three POMs name "The Apache
  // Software License, Version 2.0", gson's "Apache-2.0".
  licenses: { 'commons-lang3': 'Apache-2.0', gson: 'Apache-2.0', 'jackson-annotations': 'Apache-2.0', 'jackson-core': 'Apache-2.0', 'jackson-databind': 'Apache-2.0' },
  findings: [
    // Line 17 is commons-lang3's <dependency>, counted by hand (line 16 is the comment above it).
    { rule: 'phantom-unused', name: 'commons-lang3', line: 17 },
    // jackson-databind brings jackson-annotations; App.java:3 imports jackson-core's JsonFactory.
    { rule: 'hidden-transitive', name: 'jackson-annotations' },
    { rule: 'hidden-direct', name: 'jackson-core', at: 'src/main/java/demo/App.java:3' },
    { rule: 'unpinned', name: 'gson', line: '<dependency><!-- a version range: unpinned -->' },
  ],
};

const block = (artifact: string, version: string) =>
  `\t\t<dependency>\r\n\t\t\t<groupId>com.fasterxml.jackson.core</groupId>\r\n\t\t\t<artifactId>${artifact}</artifactId>\r\n\t\t\t<version>${version}</version>\r\n\t\t</dependency>\r\n`;

describe('outputs: Maven', () => {
  let a: AuditedFixture;
  before(async () => {
    a = await auditFixture('java-fix', ['pom.xml']);
  });
  after(() => a?.dispose());

  it('writes a CycloneDX 1.6 SBOM of D2 with evidence on exactly D3', () => checkSbom(a, expected));
  it('a license no SPDX id names: CycloneDX license.name beside license.id, an SPDX LicenseRef with its extracted info; both valid', async () => {
    // The saved report with commons-lang3 given two named licenses, one known (as mavenLicense gives them).
    const report = structuredClone(a.report);
    const lang3 = report.components.find((c: any) => c.name === 'commons-lang3');
    delete lang3.license;
    lang3.namedLicenses = [
      { name: 'Apache License, Version 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0.txt', id: 'Apache-2.0' },
      { name: 'Custom Terms', url: 'https://example.org/terms' },
    ];
    const file = path.join(path.dirname(a.reportFile), 'named.json');
    await writeFile(file, JSON.stringify(report));
    const cdx = path.join(path.dirname(a.reportFile), 'named.cdx.json');
    const spdx = path.join(path.dirname(a.reportFile), 'named.spdx.json');
    const r = await runCliAsync(['audit', '--from', file, '-q', '--sbom', `cyclonedx=${cdx}`, '--sbom', `spdx=${spdx}`], { cwd: a.dir });
    assert.equal(r.status, 1, r.stderr);
    const bom = JSON.parse(await readFile(cdx, 'utf8'));
    assertValidCycloneDx(bom);
    // The library sorts the entries (sortLists): compared as a set.
    const licenses = bom.components.find((c: any) => c.name === 'commons-lang3').licenses.sort((x: any, y: any) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    assert.deepEqual(licenses, [{ license: { id: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0.txt' } }, { license: { name: 'Custom Terms', url: 'https://example.org/terms' } }]);
    assertValidSpdx(spdx);
    const doc = JSON.parse(await readFile(spdx, 'utf8'));
    assert.equal(doc.packages.find((p: any) => p.name === 'commons-lang3').licenseDeclared, '(Apache-2.0 OR LicenseRef-1-Custom-Terms)');
    assert.deepEqual(doc.hasExtractedLicensingInfos.map((l: any) => [l.licenseId, l.name, l.seeAlsos]), [['LicenseRef-1-Custom-Terms', 'Custom Terms', ['https://example.org/terms']]]);
  });

  it('writes SARIF 2.1.0 with a result per finding on its manifest line', () => checkSarif(a, expected));
  it('writes GitHub annotations and a Markdown comment', () => checkGithubAndMarkdown(a, expected));

  it('fix: removes, pins and appends the imported <dependency> with the file\'s CRLF and tabs; the re-audit is clean', async () => {
    const text = a.original['pom.xml']!;
    const lang3 = '\t\t<dependency>\r\n\t\t\t<groupId>org.apache.commons</groupId>\r\n\t\t\t<artifactId>commons-lang3</artifactId>\r\n\t\t\t<version>3.14.0</version>\r\n\t\t</dependency>\r\n';
    const want = text
      .replace(lang3, '')
      .replace('<version>[2.10.1,2.10.1]</version>', '<version>2.10.1</version>')
      .replace('\t</dependencies>\r\n', `${block('jackson-core', '2.17.2')}\t</dependencies>\r\n`);
    await checkFix(a, { 'pom.xml': want });
  });
});
