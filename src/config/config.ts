/**
 * The project's envproof configuration: envproof.config.json, envproof.config.yaml|yml, `[tool.envproof]` in
 * pyproject.toml or the "envproof" key of package.json — one of them. Validated against the published JSON Schema
 * (schema/envproof.config.schema.json) with ajv; every error names the key. Command-line options override it.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { EnvproofError, errorMessage } from '../core/errors.js';
import { isFile } from '../core/fs.js';
import type { EcosystemId } from '../core/types.js';
import type { FindingKind } from '../audit/report.js';
import type { BackendChoice } from '../sandbox/index.js';
import { readProjectFile } from '../core/safe-read.js';

export interface EnvproofConfig {
  ecosystem?: EcosystemId | 'auto';
  run?: string | string[];
  timeout?: number;
  sandbox?: BackendChoice;
  failOn?: (FindingKind | 'hidden-transitive' | 'run')[];
  ignore?: Partial<Record<FindingKind, string[]>>;
  javaAttribution?: 'loaded' | 'opened';
}

export interface LoadedConfig {
  /** Where it was read: a file, or `pyproject.toml [tool.envproof]`, `package.json "envproof"`. */
  origin: string;
  config: EnvproofConfig;
}

export const CONFIG_SCHEMA_PATH = new URL('../../schema/envproof.config.schema.json', import.meta.url);

let validator: ReturnType<Ajv['compile']> | undefined;
function validate(value: unknown): ErrorObject[] {
  validator ??= new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as object);
  return validator(value) ? [] : [...(validator.errors ?? [])];
}

/** `/ignore/phantom/0` → `ignore.phantom[0]`. */
function keyPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), '');
}

/** One sentence per problem, each naming its key; oneOf's sub-errors are folded into one. `whole` names the document. */
export function describeConfigErrors(errors: readonly ErrorObject[], whole = 'the configuration'): string[] {
  const out = new Set<string>();
  const oneOfPaths = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.keyword !== 'oneOf' && [...oneOfPaths].some((p) => e.instancePath === p)) continue;
    const key = keyPath(e.instancePath);
    const shown = key ? `"${key}"` : whole;
    switch (e.keyword) {
      case 'additionalProperties': {
        const unknown = keyPath(e.instancePath, String(e.params.additionalProperty));
        out.add(`unknown key "${unknown}"${key ? ` (in "${key}")` : ''}`);
        break;
      }
      case 'enum':
        out.add(`${shown} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'oneOf':
        out.add(`${shown} must be a command string or a non-empty list of command strings`);
        break;
      default:
        out.add(`${shown} ${e.message ?? 'is invalid'}`);
    }
  }
  return [...out];
}

function parseError(origin: string, err: unknown): EnvproofError {
  return new EnvproofError(`${origin} cannot be read: ${errorMessage(err)}`, 'fix its syntax, or remove it');
}

/**
 * The configuration object in a file, by its name; undefined when the file holds none (pyproject.toml without the
 * table). A manifest that does not parse holds none either: the audit reports that manifest's error itself.
 */
function extract(file: string, text: string): { origin: string; value: unknown } | undefined {
  const base = path.basename(file);
  const isManifest = base === 'pyproject.toml' || base === 'package.json';
  try {
    if (base === 'pyproject.toml') {
      const tool = (parseToml(text) as { tool?: Record<string, unknown> }).tool;
      return tool && 'envproof' in tool ? { origin: `${file} [tool.envproof]`, value: tool.envproof } : undefined;
    }
    if (base === 'package.json') {
      const pkg = JSON.parse(text) as Record<string, unknown>;
      return pkg && typeof pkg === 'object' && 'envproof' in pkg ? { origin: `${file} "envproof"`, value: pkg.envproof } : undefined;
    }
    return { origin: file, value: file.endsWith('.json') ? JSON.parse(text) : parseYaml(text) };
  } catch (err) {
    if (isManifest) return undefined;
    throw parseError(file, err);
  }
}

function checked(origin: string, value: unknown): LoadedConfig {
  const problems = describeConfigErrors(validate(value));
  if (problems.length) {
    throw new EnvproofError(
      `${origin} is not a valid envproof configuration: ${problems.join('; ')}`,
      'see schema/envproof.config.schema.json (docs/config.md) for the keys and their values',
    );
  }
  return { origin, config: value as EnvproofConfig };
}

const CANDIDATES = ['envproof.config.json', 'envproof.config.yaml', 'envproof.config.yml', 'pyproject.toml', 'package.json'];

/** Reads a configuration file given by the user (`--config`). */
export async function readConfigFile(file: string): Promise<LoadedConfig> {
  const text = await readFile(file, 'utf8').catch((err: unknown) => {
    throw new EnvproofError(`cannot read the configuration ${file}: ${errorMessage(err)}`);
  });
  const found = extract(file, text);
  if (!found) throw new EnvproofError(`${file} has no envproof configuration`, 'put it under [tool.envproof] (pyproject.toml) or "envproof" (package.json)');
  return checked(found.origin, found.value);
}

/** The project's configuration, or undefined when it has none. Two places at once is an error: which one wins would be a guess. */
export async function findConfig(projectDir: string): Promise<LoadedConfig | undefined> {
  const found: { origin: string; value: unknown }[] = [];
  for (const name of CANDIDATES) {
    const file = path.join(projectDir, name);
    if (!(await isFile(file))) continue;
    const hit = extract(name, await readProjectFile(projectDir, name, 'utf8'));
    if (hit) found.push(hit);
  }
  if (found.length > 1) {
    throw new EnvproofError(`the project has ${found.length} envproof configurations: ${found.map((f) => f.origin).join(', ')}`, 'keep one of them');
  }
  return found[0] && checked(found[0].origin, found[0].value);
}

/** The configured commands as a list. */
export function configuredRuns(config: EnvproofConfig): string[] | undefined {
  return config.run === undefined ? undefined : Array.isArray(config.run) ? config.run : [config.run];
}
