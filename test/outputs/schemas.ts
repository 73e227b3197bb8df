/**
 * The official schemas, from pinned npm packages: CycloneDX 1.6 (shipped by @cyclonedx/cyclonedx-library, with the
 * SPDX and JSF schemas it refers to) and SARIF 2.1.0 (shipped by @microsoft/jest-sarif), compiled with ajv and its
 * format plugins so that formats (uri, date-time, iri-reference, ...) are checked too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
