/** Reading the contract given with `--spec`: an OpenAPI 3 document in YAML or JSON, checked before any use. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { EnvproofError } from '../../core/errors.js';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks an OpenAPI 3 document; anything else is a clear error. */
export function readOpenApiDocument(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new EnvproofError(`cannot read the API contract ${file}`, 'give the OpenAPI document with --spec <openapi.yml>');
  }
  let doc: unknown;
  try {
    doc = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new EnvproofError(`the API contract ${file} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc) || typeof doc.openapi !== 'string' || !/^3\.\d+(\.\d+)?$/.test(doc.openapi)) {
    const seen = isObject(doc) ? (doc.swagger ? `Swagger ${String(doc.swagger)}` : doc.openapi ? `openapi ${String(doc.openapi)}` : 'no "openapi" field') : 'not an object';
    throw new EnvproofError(`the API contract ${file} is not an OpenAPI 3 document (${seen})`, 'give an OpenAPI 3.x document (its first field reads `openapi: 3.0.1`, for example)');
  }
  if (!isObject(doc.paths) || Object.keys(doc.paths).length === 0) throw new EnvproofError(`the API contract ${file} has no paths`);
  return doc;
}
