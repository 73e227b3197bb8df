/**
 * PEP 508 environment markers (`; python_version < "3.11" and sys_platform == "linux"`): parsing and
 * evaluation for a target interpreter.
 */
import { pep503 } from '../../core/names.js';
import { parseSpecifier, parseVersion, specifierContains } from './pep440.js';

/** The interpreter a requirement is evaluated for: the values of PEP 508's marker variables. */
export interface MarkerEnvironment {
  os_name: string;
  sys_platform: string;
  platform_machine: string;
  platform_python_implementation: string;
  platform_release: string;
  platform_system: string;
  platform_version: string;
  python_version: string;
  python_full_version: string;
  implementation_name: string;
  implementation_version: string;
  /** The extra being installed; '' when none. */
  extra: string;
}

/** CPython 3.11 on x86-64 Linux, the paper's Python image, used when the caller knows no better. */
export const DEFAULT_MARKER_ENV: Readonly<MarkerEnvironment> = Object.freeze({
  os_name: 'posix',
  sys_platform: 'linux',
  platform_machine: 'x86_64',
  platform_python_implementation: 'CPython',
  platform_release: '',
  platform_system: 'Linux',
  platform_version: '',
  python_version: '3.11',
  python_full_version: '3.11.2',
  implementation_name: 'cpython',
  implementation_version: '3.11.2',
  extra: '',
});

/**
 * `env` as the markers see it, recording in `read` every variable a marker compares (with the value it was given):
 * what a reading of the manifest assumed about the interpreter.
 */
export function recordingMarkerEnv(env: MarkerEnvironment, read: Record<string, string>): MarkerEnvironment {
  return new Proxy(env, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof key === 'string' && typeof value === 'string') read[key] = value;
      return value;
    },
  });
}

/** `env` for the markers of an extra's dependencies: `extra` set, every other variable read through `env`. */
export function withExtra(env: MarkerEnvironment, extra: string): MarkerEnvironment {
  return Object.assign(Object.create(env) as MarkerEnvironment, { extra });
}

/** Python code that prints the running interpreter's MarkerEnvironment as JSON (for markerEnvironmentFromJson). */
export const MARKER_ENV_SCRIPT = [
  'import json, os, platform, sys',
  'i = sys.implementation',
  'v = "{0.major}.{0.minor}.{0.micro}".format(i.version)',
  'v += i.version.releaselevel[0] + str(i.version.serial) if i.version.releaselevel != "final" else ""',
  'print(json.dumps(dict(os_name=os.name, sys_platform=sys.platform, platform_machine=platform.machine(),',
  '  platform_python_implementation=platform.python_implementation(), platform_release=platform.release(),',
  '  platform_system=platform.system(), platform_version=platform.version(),',
  '  python_version=".".join(platform.python_version_tuple()[:2]), python_full_version=platform.python_version(),',
  '  implementation_name=i.name, implementation_version=v, extra="")))',
].join('\n');

/** Reads MARKER_ENV_SCRIPT's output; undefined when it is not a complete environment. */
export function markerEnvironmentFromJson(text: string): MarkerEnvironment | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const env: MarkerEnvironment = { ...DEFAULT_MARKER_ENV };
  for (const k of Object.keys(DEFAULT_MARKER_ENV) as (keyof MarkerEnvironment)[]) {
    const v = record[k];
    if (typeof v !== 'string') return undefined;
    env[k] = v;
  }
  return env;
}

/** Old spellings still accepted by pip. */
const VARIABLE_ALIASES: Record<string, keyof MarkerEnvironment> = {
  'os.name': 'os_name',
  'sys.platform': 'sys_platform',
  'platform.version': 'platform_version',
  'platform.machine': 'platform_machine',
  'platform.python_implementation': 'platform_python_implementation',
  python_implementation: 'platform_python_implementation',
};

type Operand = { variable: keyof MarkerEnvironment } | { literal: string };
type MarkerOperator = '<=' | '>=' | '==' | '!=' | '~=' | '===' | '<' | '>' | 'in' | 'not in';

export type Marker =
  | { kind: 'and' | 'or'; left: Marker; right: Marker }
  | { kind: 'compare'; left: Operand; op: MarkerOperator; right: Operand };

class MarkerError extends Error {}

const TOKEN_RE = /\s*(?:(\()|(\))|'([^']*)'|"([^"]*)"|(===|==|!=|<=|>=|~=|<|>)|([A-Za-z_][A-Za-z0-9_.]*))/y;

type Token = { type: '(' | ')' | 'string' | 'op' | 'word'; value: string };

function tokenize(text: string): Token[] {
  const source = text.trim();
  const tokens: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  while (TOKEN_RE.lastIndex < source.length) {
    const at = TOKEN_RE.lastIndex;
    const m = TOKEN_RE.exec(source);
    if (!m) throw new MarkerError(`unexpected text at offset ${at}: ${source.slice(at).trim().slice(0, 20)}`);
    if (m[1]) tokens.push({ type: '(', value: '(' });
    else if (m[2]) tokens.push({ type: ')', value: ')' });
    else if (m[3] !== undefined || m[4] !== undefined) tokens.push({ type: 'string', value: m[3] ?? m[4]! });
    else if (m[5]) tokens.push({ type: 'op', value: m[5] });
    else tokens.push({ type: 'word', value: m[6]! });
  }
  return tokens;
}

/** Recursive descent over: or_expr := and_expr ('or' and_expr)*; and_expr := atom ('and' atom)*. */
class MarkerParser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Marker {
    const marker = this.orExpr();
    const extra = this.tokens[this.pos];
    if (extra) throw new MarkerError(`unexpected '${extra.value}'`);
    return marker;
  }

  private peekWord(word: string): boolean {
    const t = this.tokens[this.pos];
    return t?.type === 'word' && t.value === word;
  }

  private orExpr(): Marker {
    let left = this.andExpr();
    while (this.peekWord('or')) {
      this.pos++;
      left = { kind: 'or', left, right: this.andExpr() };
    }
    return left;
  }

  private andExpr(): Marker {
    let left = this.atom();
    while (this.peekWord('and')) {
      this.pos++;
      left = { kind: 'and', left, right: this.atom() };
    }
    return left;
  }

  private atom(): Marker {
    if (this.tokens[this.pos]?.type === '(') {
      this.pos++;
      const inner = this.orExpr();
      if (this.tokens[this.pos]?.type !== ')') throw new MarkerError("missing ')'");
      this.pos++;
      return inner;
    }
    const left = this.operand();
    const op = this.operator();
    const right = this.operand();
    return { kind: 'compare', left, op, right };
  }

  private operand(): Operand {
    const t = this.tokens[this.pos++];
    if (!t) throw new MarkerError('unexpected end of marker');
    if (t.type === 'string') return { literal: t.value };
    if (t.type === 'word') {
      const variable = VARIABLE_ALIASES[t.value] ?? t.value;
      if (variable in DEFAULT_MARKER_ENV) return { variable: variable as keyof MarkerEnvironment };
      throw new MarkerError(`unknown marker variable '${t.value}'`);
    }
    throw new MarkerError(`expected a variable or a quoted string, found '${t.value}'`);
  }

  private operator(): MarkerOperator {
    const t = this.tokens[this.pos++];
    if (t?.type === 'op') return t.value as MarkerOperator;
    if (t?.type === 'word' && t.value === 'in') return 'in';
    if (t?.type === 'word' && t.value === 'not' && this.peekWord('in')) {
      this.pos++;
      return 'not in';
    }
    throw new MarkerError(`expected a comparison operator, found '${t?.value ?? 'end of marker'}'`);
  }
}

export type MarkerParse = { ok: true; marker: Marker } | { ok: false; error: string };

export function parseMarker(text: string): MarkerParse {
  try {
    const tokens = tokenize(text);
    if (tokens.length === 0) return { ok: false, error: 'empty marker' };
    return { ok: true, marker: new MarkerParser(tokens).parse() };
  } catch (err) {
    if (err instanceof MarkerError) return { ok: false, error: err.message };
    throw err;
  }
}

function isExtra(o: Operand): boolean {
  return 'variable' in o && o.variable === 'extra';
}

/**
 * `left op right`: PEP 440 semantics when `op right` is a valid version specifier and `left` a valid
 * version (always so for python_version and friends), Python string semantics otherwise.
 */
function compare(leftValue: string, op: MarkerOperator, rightValue: string): boolean {
  if (op === 'in') return rightValue.includes(leftValue);
  if (op === 'not in') return !rightValue.includes(leftValue);
  const spec = parseSpecifier(`${op}${rightValue}`);
  const candidate = parseVersion(leftValue);
  if (spec && candidate) return specifierContains(spec, candidate, leftValue);
  switch (op) {
    case '==':
    case '===':
      return leftValue === rightValue;
    case '!=':
      return leftValue !== rightValue;
    case '<':
      return leftValue < rightValue;
    case '<=':
      return leftValue <= rightValue;
    case '>':
      return leftValue > rightValue;
    case '>=':
      return leftValue >= rightValue;
    case '~=':
      throw new MarkerError(`'~=' needs versions on both sides, got '${leftValue}' and '${rightValue}'`);
  }
}

function evaluate(marker: Marker, env: MarkerEnvironment): boolean {
  if (marker.kind !== 'compare') {
    return marker.kind === 'and'
      ? evaluate(marker.left, env) && evaluate(marker.right, env)
      : evaluate(marker.left, env) || evaluate(marker.right, env);
  }
  // Extra names compare normalised (PEP 685), so `extra == "Dev_Tools"` matches the extra `dev-tools`.
  const normalise = isExtra(marker.left) || isExtra(marker.right) ? pep503 : (s: string) => s;
  const value = (o: Operand) => normalise('literal' in o ? o.literal : env[o.variable]);
  return compare(value(marker.left), marker.op, value(marker.right));
}

export type MarkerResult = { ok: true; value: boolean } | { ok: false; error: string };

/** Parses and evaluates a marker; a marker that cannot be parsed or compared is an error, never a guess. */
export function evaluateMarker(text: string, env: MarkerEnvironment): MarkerResult {
  const parsed = parseMarker(text);
  if (!parsed.ok) return parsed;
  try {
    return { ok: true, value: evaluate(parsed.marker, env) };
  } catch (err) {
    if (err instanceof MarkerError) return { ok: false, error: err.message };
    throw err;
  }
}
