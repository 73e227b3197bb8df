/**
 * The official schemas, from pinned npm packages: CycloneDX 1.6 (shipped by @cyclonedx/cyclonedx-library, with the
 * SPDX and JSF schemas it refers to) and SARIF 2.1.0 (shipped by @microsoft/jest-sarif), compiled with ajv and its
 * format plugins so that formats (uri, date-time, iri-reference, ...) are checked too. SPDX 2.3 documents are checked
 * by the SPDX project's own validator, spdx-tools (PyPI, pinned), installed into a venv the first time it is needed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import addDraft2019Formats from 'ajv-formats-draft2019';

const require = createRequire(import.meta.url);
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

function cycloneDxValidator(): ValidateFunction {
  const dir = path.join(path.dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
  // Configured as the library's own JSON validator configures ajv.
  const ajv = new Ajv({ strict: false, strictSchema: false, allErrors: true });
  addFormats.default(ajv);
  addDraft2019Formats(ajv, { formats: ['idn-email'] });
  ajv.addFormat('iri-reference', true);
  // The BOM schema refers to them by file name, relative to its own $id.
  for (const file of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json']) {
    ajv.addSchema({ ...json(path.join(dir, file)), $id: `http://cyclonedx.org/schema/${file}` });
  }
  return ajv.compile(json(path.join(dir, 'bom-1.6.SNAPSHOT.schema.json')));
}

function sarifValidator(): ValidateFunction {
  const file = path.join(path.dirname(require.resolve('@microsoft/jest-sarif/package.json')), 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json');
  // Without the unicode flag: the published schema's language pattern has a stray `]`, valid only outside unicode mode.
  const ajv = new AjvDraft04.default({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats.default(ajv as unknown as Ajv);
  return ajv.compile(json(file));
}

let cdx: ValidateFunction | undefined;
let sarif: ValidateFunction | undefined;

export function assertValidCycloneDx(doc: unknown): void {
  cdx ??= cycloneDxValidator();
  assert.ok(cdx(doc), `not valid CycloneDX 1.6: ${JSON.stringify(cdx.errors?.slice(0, 5), null, 2)}`);
}

export function assertValidSarif(doc: unknown): void {
  sarif ??= sarifValidator();
  assert.ok(sarif(doc), `not valid SARIF 2.1.0: ${JSON.stringify(sarif.errors?.slice(0, 5), null, 2)}`);
}

const SPDX_TOOLS = 'spdx-tools==0.8.3';

/**
 * The interpreter of a venv with spdx-tools, shared by the test files of this machine: built aside, then renamed into
 * place (its python finds its site-packages from where it is, so the venv works after the rename).
 */
function spdxToolsPython(): string {
  const dir = path.join(os.tmpdir(), `envproof-test-${SPDX_TOOLS.replace('==', '-')}`);
  const python = path.join(dir, 'bin', 'python');
  if (existsSync(python)) return python;
  const building = mkdtempSync(`${dir}.building-`);
  const venv = spawnSync('python3', ['-m', 'venv', building], { encoding: 'utf8' });
  assert.equal(venv.status, 0, venv.stderr);
  const pip = spawnSync(path.join(building, 'bin', 'python'), ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', SPDX_TOOLS], { encoding: 'utf8', timeout: 600_000 });
  assert.equal(pip.status, 0, `pip install ${SPDX_TOOLS}: ${pip.stderr}`);
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another test file got there first
  }
  return python;
}

/** A valid SPDX 2.3 document, as the SPDX project's validator (spdx-tools' pyspdxtools) judges the file. */
export function assertValidSpdx(file: string): void {
  const r = spawnSync(spdxToolsPython(), ['-m', 'spdx_tools.spdx.clitools.pyspdxtools', '-i', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, `pyspdxtools: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /invalid|error/i, `not valid SPDX 2.3: ${r.stderr}`);
}
