/**
 * The outputs tests share one audit per fixture: `auditFixture` audits a copy once (saved with --json), then every
 * output is rendered from the saved report (`audit --from`) and `fix --from` plans from it, so only fix's re-audit
 * audits again. Expectations are written by hand from the fixtures' known dependencies.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyPatch } from 'diff';
import { REPO_ROOT, runCliAsync, type CliResult } from '../helpers/cli.js';
import { assertValidCycloneDx, assertValidSpdx, assertValidSarif } from './schemas.js';

export const FIXTURES = path.join(REPO_ROOT, 'test', 'outputs', 'fixtures');
const MANIFEST_KINDS = ['phantom', 'hidden', 'unpinned'];

export interface AuditedFixture {
  /** The project copy that was audited (and that fix edits). */
  dir: string;
  reportFile: string;
  report: any;
  /** The manifest files' text before any fix, by name. */
  original: Record<string, string>;
  dispose(): Promise<void>;
}

/** Audits a copy of a fixture once, on the host sandbox, and saves the report. */
export async function auditFixture(fixture: string, manifests: readonly string[]): Promise<AuditedFixture> {
  const root = await mkdtemp(path.join(tmpdir(), `envproof-outputs-${fixture}-`));
  const dir = path.join(root, fixture);
  await cp(path.join(FIXTURES, fixture), dir, { recursive: true });
  const r = await runCliAsync(['audit', dir, '--json', '--sandbox', 'host', '-q']);
  let report: any;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`audit of ${fixture} printed no JSON (exit ${r.status}):\n${r.stderr}`);
  }
  assert.equal(r.status, 1, `the fixture has findings: exit 1\n${r.stderr}`);
  const reportFile = path.join(root, 'report.json');
  await writeFile(reportFile, r.stdout);
  const original: Record<string, string> = {};
  for (const m of manifests) original[m] = await readFile(path.join(dir, m), 'utf8');
  return { dir, reportFile, report, original, dispose: () => rm(root, { recursive: true, force: true }) };
}

/** `audit --from <report> ...args`, run in the project directory as CI runs it in the repository. */
export function renderFrom(a: AuditedFixture, ...args: string[]): Promise<CliResult> {
  return runCliAsync(['audit', '--from', a.reportFile, '-q', ...args], { cwd: a.dir });
}

/** The 1-based line of the manifest that holds `text` (exactly one line must). */
export function lineOf(manifest: string, text: string | number): number {
  if (typeof text === 'number') return text;
  const lines = manifest.split('\n');
  const hits = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  assert.equal(hits.length, 1, `exactly one manifest line holds ${JSON.stringify(text)}`);
  return hits[0]!;
}

export interface ExpectedFinding {
  rule: 'phantom-unused' | 'phantom-not-traced' | 'hidden' | 'hidden-direct' | 'hidden-transitive' | 'unpinned';
  name: string;
  /** The manifest line the finding is on (its number, or text only that line holds); none for hidden ones. */
  line?: string | number;
  /** A finding located in the code instead (a direct hidden dependency): its import, `file:line`. */
  at?: string;
  ignored?: true;
}

/** Where a finding is: its import in the code, or the manifest and the line that holds `line`. */
function placeOf(f: ExpectedFinding, e: ExpectedOutputs, manifest: string): { file: string; line?: number } {
  if (f.at) {
    const [file, line] = f.at.split(':');
    return { file: file!, line: Number(line) };
  }
  return { file: e.manifest, ...(f.line ? { line: lineOf(manifest, f.line) } : {}) };
}

/** What no fix changes: a hidden dependency only other packages load stays information. */
const stillOpen = (f: any) => MANIFEST_KINDS.includes(f.kind) && !f.ignored && f.hidden !== 'transitive';

export interface ExpectedOutputs {
  manifest: string;
  /** D2 and D3 as name@version, from the fixture's known dependencies. */
  installed: string[];
  loaded: string[];
  /** Per loaded package, a pattern every one of its occurrences matches (a file of that package). */
  loadedFiles: Record<string, RegExp>;
  /** Dependency-graph edges (name@version → name@version) that must be there. */
  edges: [string, string][];
  /** Whether the package manager gives hashes (every installed component has one). */
  hashes: boolean;
  findings: ExpectedFinding[];
  /**
   * Licenses the installed metadata declares, per package name, as the packages' own metadata says (written by hand
   * from their package.json or dist-info); null where it names no single license. Packages not listed are not checked.
   */
  licenses?: Record<string, string | null>;
}

const key = (c: { name: string; version?: string }) => `${c.name}@${c.version ?? ''}`;
const prop = (c: any, name: string) => c.properties?.find((p: any) => p.name === `envproof:${name}`)?.value;

/** The SBOM: valid CycloneDX 1.6; components D2 ∪ D3 with the layer flags; evidence.occurrences on exactly D3. */
export async function checkSbom(a: AuditedFixture, e: ExpectedOutputs): Promise<void> {
  const out = path.join(path.dirname(a.reportFile), 'sbom.json');
  const r = await renderFrom(a, '--sbom', 'cyclonedx', '--out', out);
  assert.equal(r.status, 1, r.stderr);
  const bom = JSON.parse(await readFile(out, 'utf8'));
  assertValidCycloneDx(bom);
  assert.equal(bom.specVersion, '1.6');
  const components: any[] = bom.components;
  assert.deepEqual(components.map(key).sort(), [...new Set([...e.installed, ...e.loaded])].sort());
  for (const c of components) {
    assert.equal(prop(c, 'installed'), String(e.installed.includes(key(c))), `${key(c)} installed`);
    // CycloneDX's scope says what the trace showed: loaded, declared but never loaded (a phantom), or neither.
    const phantom = e.findings.some((f) => f.rule.startsWith('phantom') && f.name === c.name);
    assert.equal(c.scope, e.loaded.includes(key(c)) ? 'required' : phantom ? 'optional' : 'excluded', `${key(c)} scope`);
    assert.equal(prop(c, 'loaded'), undefined, 'no envproof:loaded property where CycloneDX has a field');
    if (e.hashes && e.installed.includes(key(c))) assert.ok(c.hashes?.length, `${key(c)} has the package manager's hash`);
    if (e.licenses && c.name in e.licenses) {
      const want = e.licenses[c.name];
      assert.deepEqual(c.licenses, want ? [{ expression: want }] : undefined, `${key(c)} license`);
    }
    assert.match(c.purl, /^pkg:[a-z]+\//);
  }
  const withEvidence = components.filter((c) => c.evidence?.occurrences?.length).map(key).sort();
  assert.deepEqual(withEvidence, [...e.loaded].sort(), 'evidence.occurrences on exactly the loaded components');
  for (const c of components.filter((c) => c.evidence)) {
    const pattern = e.loadedFiles[c.name];
    assert.ok(pattern, `a file pattern for ${c.name}`);
    for (const o of c.evidence.occurrences) assert.match(o.location, pattern, `${c.name} occurrence`);
  }
  const refOf = new Map(components.map((c) => [key(c), c['bom-ref']]));
  for (const [from, to] of e.edges) {
    const node = bom.dependencies.find((d: any) => d.ref === refOf.get(from));
    assert.ok(node?.dependsOn?.includes(refOf.get(to)), `${from} depends on ${to} in the SBOM graph`);
  }
  await checkSpdx(a, e);
}

/** `--sbom spdx`: valid SPDX 2.3 (the SPDX project's validator); one package per component, with its purl and graph. */
async function checkSpdx(a: AuditedFixture, e: ExpectedOutputs): Promise<void> {
  const out = path.join(path.dirname(a.reportFile), 'sbom.spdx.json');
  const r = await renderFrom(a, '--sbom', 'spdx', '--out', out);
  assert.equal(r.status, 1, r.stderr);
  assertValidSpdx(out);
  const doc = JSON.parse(await readFile(out, 'utf8'));
  assert.equal(doc.spdxVersion, 'SPDX-2.3');
  const libraries: any[] = doc.packages.filter((p: any) => p.primaryPackagePurpose === 'LIBRARY');
  const spdxKey = (p: any) => `${p.name}@${p.versionInfo ?? ''}`;
  assert.deepEqual(libraries.map(spdxKey).sort(), [...new Set([...e.installed, ...e.loaded])].sort());
  for (const p of libraries) {
    assert.match(p.externalRefs?.[0]?.referenceLocator ?? '', /^pkg:[a-z]+\//, `${spdxKey(p)} purl`);
    assert.match(p.comment, e.loaded.includes(spdxKey(p)) ? /loaded at run time \(D3\)/ : /never loaded/);
    if (e.licenses && p.name in e.licenses) assert.equal(p.licenseDeclared, e.licenses[p.name] ?? 'NOASSERTION', `${spdxKey(p)} licenseDeclared`);
  }
  const idOf = new Map(libraries.map((p) => [spdxKey(p), p.SPDXID]));
  for (const [from, to] of e.edges) {
    assert.ok(
      doc.relationships.some((rel: any) => rel.spdxElementId === idOf.get(from) && rel.relationshipType === 'DEPENDS_ON' && rel.relatedSpdxElement === idOf.get(to)),
      `${from} DEPENDS_ON ${to} in the SPDX document`,
    );
  }
}

/** SARIF 2.1.0: one result per expected finding, its ruleId, on the manifest line (the manifest for hidden ones). */
export async function checkSarif(a: AuditedFixture, e: ExpectedOutputs): Promise<void> {
  const out = path.join(path.dirname(a.reportFile), 'audit.sarif');
  const r = await renderFrom(a, '--sarif', '--out', out);
  assert.equal(r.status, 1, r.stderr);
  const log = JSON.parse(await readFile(out, 'utf8'));
  assertValidSarif(log);
  const rules = log.runs[0].tool.driver.rules.map((rule: any) => rule.id);
  const results = log.runs[0].results.map((res: any) => {
    const physical = res.locations?.[0]?.physicalLocation;
    assert.equal(rules[res.ruleIndex], res.ruleId);
    return {
      rule: res.ruleId,
      name: res.properties.package,
      uri: physical?.artifactLocation.uri,
      line: physical?.region?.startLine,
      suppressed: Boolean(res.suppressions?.length),
    };
  });
  const manifest = a.original[e.manifest]!;
  const expected = e.findings.map((f) => {
    const place = placeOf(f, e, manifest);
    return { rule: f.rule, name: f.name, uri: place.file, line: place.line, suppressed: Boolean(f.ignored) };
  });
  const order = (x: { rule: string; name: string }) => `${x.rule} ${x.name}`;
  assert.deepEqual(results.sort((x: any, y: any) => order(x).localeCompare(order(y))), expected.sort((x, y) => order(x).localeCompare(order(y))));
}

/** `--format github`: one workflow command per open finding, with file and line; `--format markdown` (or `md`): a table row each. */
export async function checkGithubAndMarkdown(a: AuditedFixture, e: ExpectedOutputs): Promise<void> {
  const [github, markdown, md] = await Promise.all([renderFrom(a, '--format', 'github'), renderFrom(a, '--format', 'markdown'), renderFrom(a, '--format', 'md')]);
  assert.equal(md.stdout, markdown.stdout, `--format md is --format markdown: ${md.stderr}`);
  const manifest = a.original[e.manifest]!;
  const open = e.findings.filter((f) => !f.ignored);
  const lines = github.stdout.trim().split('\n').filter(Boolean).sort();
  const level = (f: ExpectedFinding) => (f.rule === 'unpinned' ? 'warning' : f.rule === 'hidden-transitive' ? 'notice' : 'error');
  const expected = open.map((f) => {
    const place = placeOf(f, e, manifest);
    return `::${level(f)} file=${place.file}${place.line ? `,line=${place.line}` : ''},title=envproof ${f.rule}::${f.name}`;
  });
  assert.equal(lines.length, expected.length, github.stdout);
  for (const want of expected) assert.ok(lines.some((l) => l.startsWith(`${want} `) || l.startsWith(`${want}:`)), `annotation ${want} in\n${github.stdout}`);
  const rows = markdown.stdout.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| finding') && !l.startsWith('| ---'));
  assert.equal(rows.length, open.length, markdown.stdout);
  for (const f of open) {
    const place = placeOf(f, e, manifest);
    const where = place.line ? `${place.file}:${place.line}` : place.file;
    assert.ok(rows.some((row) => row.includes(`\`${f.name}\``) && row.includes(`\`${where}\``)), `markdown row for ${f.name} at ${where}`);
  }
  for (const f of e.findings.filter((f) => f.ignored)) assert.match(markdown.stdout, new RegExp(`Ignored by the configuration: .*${f.name}`));
  // The report's findings agree with the expectation kind by kind (the outputs above only show manifest kinds).
  const reported = a.report.findings.filter((f: any) => MANIFEST_KINDS.includes(f.kind)).map((f: any) => f.name);
  assert.deepEqual([...reported].sort(), e.findings.map((f) => f.name).sort());
}

/**
 * `fix --from <report> --pin --remove-phantom`: first as a dry run (the diff on stdout, nothing written, and the
 * diff turns the original into `expected`), then for real (the manifests become `expected` byte for byte and the
 * re-audit has no open manifest finding). Returns fix's JSON for ecosystem-specific checks.
 */
export async function checkFix(a: AuditedFixture, expected: Record<string, string>): Promise<any> {
  const args = ['fix', '--from', a.reportFile, '--pin', '--remove-phantom', '--sandbox', 'host', '-q'];
  const dry = await runCliAsync([...args, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  for (const [file, text] of Object.entries(a.original)) {
    assert.equal(await readFile(path.join(a.dir, file), 'utf8'), text, `--dry-run leaves ${file} alone`);
    const patched = applyPatch(text, dry.stdout.split(/(?=^--- a\/)/m).find((p) => p.startsWith(`--- a/${file}\n`)) ?? '');
    assert.equal(patched, expected[file] ?? text, `the dry run's diff turns ${file} into the expected text`);
  }
  const fixed = await runCliAsync([...args, '--json']);
  assert.equal(fixed.status, 0, `the re-audit is clean\n${fixed.stdout.slice(0, 4000)}\n${fixed.stderr}`);
  const result = JSON.parse(fixed.stdout);
  assert.equal(result.diff, dry.stdout, 'the dry run printed the diff the fix made');
  for (const [file, text] of Object.entries(expected)) assert.equal(await readFile(path.join(a.dir, file), 'utf8'), text, `${file} after the fix`);
  assert.deepEqual(result.after.findings.filter(stillOpen), [], 'no phantom, direct hidden or unpinned finding is left open after the fix');
  return result;
}

/**
 * Several outputs of one audit at once, as syft's `-o format=file`: both SBOMs and SARIF each to its file and
 * --format markdown on standard output, each the same as when rendered alone (the SBOMs' serial numbers,
 * namespaces and times aside, which are new on every rendering).
 */
export async function checkSeveralOutputs(a: AuditedFixture): Promise<void> {
  const dir = path.dirname(a.reportFile);
  const file = (name: string) => path.join(dir, name);
  const all = await renderFrom(a, '--sbom', `cyclonedx=${file('all.cdx.json')}`, '--sbom', `spdx=${file('all.spdx.json')}`, '--sarif', file('all.sarif'), '--format', 'markdown');
  assert.equal(all.status, 1, all.stderr);
  const alone = await Promise.all([
    renderFrom(a, '--sbom', 'cyclonedx', '--out', file('alone.cdx.json')),
    renderFrom(a, '--sbom', 'spdx', '--out', file('alone.spdx.json')),
    renderFrom(a, '--sarif', '--out', file('alone.sarif')),
    renderFrom(a, '--format', 'markdown'),
  ]);
  assert.equal(all.stdout, alone[3]!.stdout, 'the markdown on standard output');
  const read = async (name: string) => JSON.parse(await readFile(file(name), 'utf8'));
  const fresh = (doc: any) => {
    const { serialNumber, documentNamespace, ...rest } = doc;
    if (rest.metadata) rest.metadata = { ...rest.metadata, timestamp: undefined };
    if (rest.creationInfo) rest.creationInfo = { ...rest.creationInfo, created: undefined };
    return rest;
  };
  assert.deepEqual(fresh(await read('all.cdx.json')), fresh(await read('alone.cdx.json')));
  assert.deepEqual(fresh(await read('all.spdx.json')), fresh(await read('alone.spdx.json')));
  assert.deepEqual(await read('all.sarif'), await read('alone.sarif'));
  assertValidSpdx(file('all.spdx.json'));
}
