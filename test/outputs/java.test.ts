/**
 * The audit's outputs and `envproof fix` on the Maven fixture (java-fix: CRLF line endings and tabs), one audit.
 * Known by hand: jackson-databind 2.17.2 depends on jackson-annotations and jackson-core 2.17.2; App uses gson,
 * jackson-databind and jackson-core; commons-lang3 is never used.
 */
import { after, before, describe, it } from 'node:test';
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
