/** The package ships no types: it adds the draft 2019-09 formats to an Ajv instance. */
declare module 'ajv-formats-draft2019' {
  import type { Ajv } from 'ajv';
  export default function addFormats(ajv: Ajv, options?: { formats?: string[] }): Ajv;
}
