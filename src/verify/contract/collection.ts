/** Reading the Postman collection given with `--collection`: a v2.1 collection, checked before any use. */
import { readFileSync } from 'node:fs';
import { EnvproofError } from '../../core/errors.js';

const V21 = /\/collection\/v2\.1(\.\d+)?\/collection\.json$/;

/** Reads and checks a Postman v2.1 collection; anything else is a clear error. */
export function loadCollection(file: string): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ? 'cannot be read' : `is not JSON (${(err as Error).message})`;
    throw new EnvproofError(`the Postman collection ${file} ${why}`, 'give an exported Postman collection (v2.1 JSON) with --collection <file>');
  }
  const info = (doc as { info?: { schema?: unknown } } | null)?.info;
  const schema = typeof info?.schema === 'string' ? info.schema : undefined;
  if (!schema || !V21.test(schema) || !Array.isArray((doc as { item?: unknown }).item)) {
    throw new EnvproofError(
      `${file} is not a Postman v2.1 collection (${schema ? `its info.schema is ${schema}` : 'it has no info.schema'})`,
      'export the collection from Postman as "Collection v2.1", or convert it with postman-collection-transformer',
    );
  }
  return doc;
}
