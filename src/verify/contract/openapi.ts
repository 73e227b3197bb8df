/**
 * The API contract given with `--spec`: an OpenAPI 3 document (YAML or JSON), read from the user's path and
 * never copied into the project. Response bodies are validated against its own schemas with Ajv.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { EnvproofError } from '../../core/errors.js';
import { isObject, readOpenApiDocument, type Json } from './openapi-document.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface Operation {
  id: string;
  method: (typeof HTTP_METHODS)[number];
  /** The path template, e.g. `/articles/{slug}`. */
  path: string;
  /** Status codes the document lists for the operation. */
  statuses: string[];
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export class OpenApiContract {
  readonly operations: Operation[];
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction | null>();

  private constructor(
    readonly file: string,
    private readonly doc: Json,
  ) {
    this.operations = [];
    for (const [p, item] of Object.entries(doc.paths as Json)) {
      if (!isObject(item)) continue;
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!isObject(op)) continue;
        const id = typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${p}`;
        this.operations.push({ id, method, path: p, statuses: Object.keys(isObject(op.responses) ? op.responses : {}) });
      }
    }
    // OpenAPI 3.0 schemas are JSON Schema with extra keywords (example, xml, x-*): not strict; `nullable` is Ajv's own.
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'contract');
  }

  /** Reads and checks an OpenAPI 3 document; anything else is a clear error. */
  static load(file: string): OpenApiContract {
    return new OpenApiContract(file, readOpenApiDocument(file));
  }

  operation(id: string): Operation {
    const op = this.operations.find((o) => o.id === id);
    if (!op) {
      throw new EnvproofError(
        `the API contract ${this.file} has no operation ${id}`,
        "envproof's contract suite is written for the RealWorld Conduit API: give its OpenAPI document",
      );
    }
    return op;
  }

  /** Follows local `$ref`s: the node they lead to and its JSON pointer. */
  private deref(node: unknown, pointer: string): { node: unknown; pointer: string } {
    let n = node;
    let p = pointer;
    for (let i = 0; i < 20 && isObject(n) && typeof n.$ref === 'string' && n.$ref.startsWith('#/'); i++) {
      p = n.$ref.slice(1);
      n = p
        .split('/')
        .slice(1)
        .reduce<unknown>((acc, k) => (isObject(acc) ? acc[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), this.doc);
    }
    return { node: n, pointer: p };
  }

  /**
   * A validator of the JSON body the document defines for an operation's status code; null when the document
   * defines no JSON body for it (e.g. an empty 200).
   */
  bodyValidator(id: string, status: string): ValidateFunction | null {
    const key = `${id} ${status}`;
    if (this.validators.has(key)) return this.validators.get(key)!;
    const op = this.operation(id);
    const opNode = ((this.doc.paths as Json)[op.path] as Json)[op.method] as Json;
    const responses = isObject(opNode.responses) ? opNode.responses : {};
    const entry = this.deref(responses[status], `/paths/${escapePointer(op.path)}/${op.method}/responses/${status}`);
    const content = isObject(entry.node) && isObject(entry.node.content) ? entry.node.content['application/json'] : undefined;
    const validator = isObject(content) && content.schema !== undefined ? this.ajv.compile({ $ref: `contract#${entry.pointer}/content/application~1json/schema` }) : null;
    this.validators.set(key, validator);
    return validator;
  }
}
