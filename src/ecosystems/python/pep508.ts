/**
 * PEP 508 dependency specifiers (`name[extras] specifiers ; marker` and `name @ url ; marker`), shared
 * by requirements files and pyproject.toml, and their conversion to a declared Dependency.
 */
import { pep503 } from '../../core/names.js';
import type { Dependency, SkippedEntry } from '../../core/types.js';
import { evaluateMarker, type MarkerEnvironment } from './markers.js';
import { parseSpecifierSet, pinnedVersion, type Specifier } from './pep440.js';

const PROJECT_NAME_RE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

function isValidProjectName(name: string): boolean {
  return PROJECT_NAME_RE.test(name);
}

/** Hides credentials in URLs (`https://user:token@host` → `https://***@host`); ssh's `git@` stays. */
export function redactCredentials(text: string): string {
  return text.replace(/(\w:\/\/)(?!git@)[^/@\s]+@/g, '$1***@');
}

export interface Requirement {
  /** As written. */
  name: string;
  /** Normalised, sorted. */
  extras: string[];
  specifiers: Specifier[];
  url?: string;
  marker?: string;
}

type Failure = { ok: false; reason: 'invalid-name' | 'unsupported-syntax'; detail: string };
export type RequirementParse = { ok: true; requirement: Requirement } | Failure;

function fail(reason: Failure['reason'], detail: string): Failure {
  return { ok: false, reason, detail };
}

/** Splits off `; marker`; undefined marker when there is none or it is blank. */
function splitMarker(text: string): [string, string | undefined] {
  const at = text.indexOf(';');
  if (at < 0) return [text, undefined];
  const marker = text.slice(at + 1).trim();
  return [text.slice(0, at), marker || undefined];
}

export function parseRequirement(text: string): RequirementParse {
  const trimmed = text.trim();
  const name = /^[^\s[(<>=!~;@,]*/.exec(trimmed)![0];
  if (!name) return fail('invalid-name', 'no project name');
  if (!isValidProjectName(name)) return fail('invalid-name', `'${name}' is not a valid project name`);
  let rest = trimmed.slice(name.length).trimStart();

  let extras: string[] = [];
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return fail('unsupported-syntax', "unclosed '[' in extras");
    const listed = rest.slice(1, close).split(',').map((e) => e.trim()).filter((e) => e !== '');
    const bad = listed.find((e) => !isValidProjectName(e));
    if (bad !== undefined) return fail('unsupported-syntax', `'${bad}' is not a valid extra name`);
    extras = [...new Set(listed.map(pep503))].sort();
    rest = rest.slice(close + 1).trimStart();
  }

  if (rest.startsWith('@')) {
    // The URL runs to the first whitespace; a marker must be separated from it by whitespace.
    const m = /^@\s*(\S+)(.*)$/s.exec(rest);
    if (!m) return fail('unsupported-syntax', "no URL after '@'");
    const after = m[2]!.trim();
    if (after && !after.startsWith(';')) return fail('unsupported-syntax', `unexpected text after the URL: ${after}`);
    const [, marker] = splitMarker(after);
    return { ok: true, requirement: { name, extras, specifiers: [], url: m[1]!, marker } };
  }

  let [versionPart, marker] = splitMarker(rest);
  versionPart = versionPart.trim();
  if (versionPart.startsWith('(')) {
    if (!versionPart.endsWith(')')) return fail('unsupported-syntax', "unclosed '(' in version specifier");
    versionPart = versionPart.slice(1, -1);
  }
  const specifiers = parseSpecifierSet(versionPart);
  if (!specifiers) return fail('unsupported-syntax', `invalid version specifier '${versionPart.trim()}'`);
  return { ok: true, requirement: { name, extras, specifiers, marker } };
}

/** `name[extras]>=1,<2` or `name[extras] @ url` with the normalised name; undefined when it would say no more than the name. */
function requirementId(req: Requirement): string | undefined {
  const extras = req.extras.length ? `[${req.extras.join(',')}]` : '';
  const tail = req.url ? ` @ ${redactCredentials(req.url)}` : req.specifiers.map((s) => `${s.op}${s.text}`).join(',');
  return extras || tail ? `${pep503(req.name)}${extras}${tail}` : undefined;
}

export type Interpretation = { kind: 'dependency'; dependency: Dependency } | { kind: 'skipped'; entry: SkippedEntry };

export function skippedEntry(raw: string, reason: SkippedEntry['reason'], source: string, detail?: string): SkippedEntry {
  const entry: SkippedEntry = { raw: redactCredentials(raw), reason, source };
  if (detail !== undefined) entry.detail = redactCredentials(detail);
  return entry;
}

export function skipped(raw: string, reason: SkippedEntry['reason'], source: string, detail?: string): Interpretation {
  return { kind: 'skipped', entry: skippedEntry(raw, reason, source, detail) };
}

/** A skipped entry when the marker is false ('marker-excluded') or cannot be evaluated; undefined when the entry applies. */
export function markerExclusion(raw: string, marker: string | undefined, source: string, env: MarkerEnvironment): Interpretation | undefined {
  if (marker === undefined) return undefined;
  const result = evaluateMarker(marker, env);
  if (!result.ok) return skipped(raw, 'unsupported-syntax', source, `invalid marker: ${result.error}`);
  return result.value ? undefined : skipped(raw, 'marker-excluded', source, marker);
}

/**
 * What a named requirement contributes for the target interpreter: a dependency, or a skipped entry
 * when its marker is false ('marker-excluded') or cannot be evaluated.
 */
export function interpretNamed(
  raw: string,
  name: string,
  marker: string | undefined,
  source: string,
  env: MarkerEnvironment,
  details: Pick<Dependency, 'version' | 'id'> = {},
): Interpretation {
  if (!isValidProjectName(name)) return skipped(raw, 'invalid-name', source, `'${name}' is not a valid project name`);
  const excluded = markerExclusion(raw, marker, source, env);
  if (excluded) return excluded;
  const dependency: Dependency = { name: pep503(name), source };
  if (details.version !== undefined) dependency.version = details.version;
  if (details.id !== undefined) dependency.id = details.id;
  return { kind: 'dependency', dependency };
}

/** A PEP 508 string (from a requirements line or pyproject.toml) for the target interpreter; `raw` is what the manifest says. */
export function interpretRequirement(text: string, source: string, env: MarkerEnvironment, raw = text): Interpretation {
  const parsed = parseRequirement(text);
  if (!parsed.ok) return skipped(raw.trim(), parsed.reason, source, parsed.detail);
  const req = parsed.requirement;
  return interpretNamed(raw.trim(), req.name, req.marker, source, env, {
    version: pinnedVersion(req.specifiers),
    id: requirementId(req),
  });
}
