/**
 * npm packages a tool loads by name from its configuration, which no `import` or `require` names: Babel plug-ins
 * and presets (`.babelrc`, `.babelrc.json`, `babel.config.json`, package.json `babel`) and ESLint plug-ins, shared
 * configs and parsers (`.eslintrc` in JSON or YAML, `.eslintrc.json`, `.eslintrc.yml`, `.eslintrc.yaml`, package.json
 * `eslintConfig`), with the short names each tool expands (`transform-x` → `babel-plugin-transform-x`,
 * `plugin:foo/recommended` → `eslint-plugin-foo`). Configs written in JavaScript are not read (running them would
 * run the project's code).
 */
import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser';
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Discovery } from '../outputs.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';
import { lineNumber } from '../text-edits.js';
import { packageOfSpecifier } from './names.js';

export type Discovered = Record<string, Discovery>;

/** How a tool turns a short name into a package: `prefix` is `babel-plugin`, `eslint-config`, ... */
function expand(raw: string, prefix: string, babelScope?: string): string | undefined {
  if (raw.startsWith('module:')) return packageOfSpecifier(raw.slice('module:'.length));
  if (/^[./]/.test(raw)) return undefined;
  const scoped = /^(@[^/]+)(?:\/(.+))?$/.exec(raw);
  if (scoped) {
    const [, scope, rest] = scoped;
    if (scope === '@babel' && babelScope && rest) return packageOfSpecifier(`@babel/${rest.startsWith(babelScope) ? rest : `${babelScope}${rest}`}`);
    if (!rest) return `${scope}/${prefix}`;
    return packageOfSpecifier(`${scope}/${rest.startsWith(prefix) ? rest : `${prefix}-${rest}`}`);
  }
  return packageOfSpecifier(raw.startsWith(`${prefix}-`) ? raw : `${prefix}-${raw}`);
}

/** `plugin:foo/recommended` → foo, `plugin:@scope/recommended` → @scope, `plugin:@scope/foo/all` → @scope/foo. */
function eslintExtends(raw: string): string | undefined {
  if (raw.startsWith('eslint:')) return undefined;
  const plugin = /^plugin:(.+)\/[^/]+$/.exec(raw)?.[1];
  return plugin ? expand(plugin, 'eslint-plugin') : expand(raw, 'eslint-config');
}

/** The string entries of a `plugins`/`presets`-like list (an entry may be `[name, options]`), or of one string. */
function names(node: Node | undefined): Node[] {
  if (!node) return [];
  if (node.type === 'string') return [node];
  if (node.type !== 'array') return [];
  return (node.children ?? []).flatMap((c) => (c.type === 'string' ? [c] : c.type === 'array' && c.children?.[0]?.type === 'string' ? [c.children[0]] : []));
}

/** The config object and the configs nested in it that the tool merges (Babel `env`/`overrides`, ESLint `overrides`). */
function configs(node: Node | undefined, nested: readonly string[]): Node[] {
  if (node?.type !== 'object') return [];
  const out = [node];
  for (const key of nested) {
    const child = findNodeAtLocation(node, [key]);
    const inner = child?.type === 'object' ? (child.children ?? []).map((p) => p.children?.[1]) : child?.type === 'array' ? (child.children ?? []) : [];
    for (const c of inner) out.push(...configs(c, nested));
  }
  return out;
}

interface Tool {
  rule: string;
  files: readonly string[];
  packageKey: string;
  nested: readonly string[];
  /** Per key of a config, how a name in it becomes a package. */
  keys: Record<string, (raw: string) => string | undefined>;
}

const TOOLS: readonly Tool[] = [
  {
    rule: 'babel-config',
    files: ['.babelrc', '.babelrc.json', 'babel.config.json'],
    packageKey: 'babel',
    nested: ['env', 'overrides'],
    keys: { plugins: (r) => expand(r, 'babel-plugin', 'plugin-'), presets: (r) => expand(r, 'babel-preset', 'preset-') },
  },
  {
    rule: 'eslint-config',
    files: ['.eslintrc', '.eslintrc.json', '.eslintrc.yml', '.eslintrc.yaml'],
    packageKey: 'eslintConfig',
    nested: ['overrides'],
    keys: { plugins: (r) => expand(r, 'eslint-plugin'), extends: eslintExtends, parser: (r) => packageOfSpecifier(r) },
  },
];

function collect(out: Discovered, tool: Tool, root: Node | undefined, file: string, text: string): void {
  for (const config of configs(root, tool.nested)) {
    for (const [key, toPackage] of Object.entries(tool.keys)) {
      for (const entry of names(findNodeAtLocation(config, [key]))) {
        const name = toPackage(String(entry.value));
        if (name && !out[name]) out[name] = { rule: tool.rule, evidence: `${file}:${lineNumber(text, entry.offset)}` };
      }
    }
  }
}

/** A YAML node as jsonc-parser's tree (offsets kept), so that both formats are walked the same way. */
function fromYaml(n: unknown): Node | undefined {
  const offset = (n as { range?: [number] }).range?.[0] ?? 0;
  if (isScalar(n)) {
    const type = typeof n.value === 'string' ? 'string' : typeof n.value === 'number' ? 'number' : typeof n.value === 'boolean' ? 'boolean' : 'null';
    return { type, offset, length: 0, value: n.value };
  }
  if (isSeq(n)) return { type: 'array', offset, length: 0, children: n.items.map(fromYaml).filter((c): c is Node => c !== undefined) };
  if (isMap(n)) {
    const children = n.items.flatMap((pair): Node[] => {
      const key = fromYaml(pair.key);
      const value = fromYaml(pair.value);
      return key && value ? [{ type: 'property', offset: key.offset, length: 0, children: [key, value] }] : [];
    });
    return { type: 'object', offset, length: 0, children };
  }
  return undefined;
}

/** The config's tree: JSON (with comments), else YAML for the YAML names and for `.eslintrc`, which may be either. */
function parseConfig(file: string, text: string): Node | undefined {
  const errors: ParseError[] = [];
  const json = /\.ya?ml$/.test(file) ? undefined : parseTree(text, errors);
  if (json && !errors.length) return json;
  if (!/\.ya?ml$/.test(file) && file !== '.eslintrc') return json;
  const doc = parseDocument(text);
  return doc.errors.length ? undefined : fromYaml(doc.contents);
}

/** The packages named in the project's Babel and ESLint configuration, each with the first place it is named. */
export async function configDiscoveries(projectDir: string): Promise<Discovered> {
  const out: Discovered = {};
  const pkgText = await readProjectFileIfExists(projectDir, 'package.json');
  const pkg = pkgText === undefined ? undefined : parseTree(pkgText);
  for (const tool of TOOLS) {
    for (const file of tool.files) {
      const text = await readProjectFileIfExists(projectDir, file);
      if (text !== undefined) collect(out, tool, parseConfig(file, text), file, text);
    }
    if (pkg && pkgText !== undefined) collect(out, tool, findNodeAtLocation(pkg, [tool.packageKey]), 'package.json', pkgText);
  }
  return out;
}
