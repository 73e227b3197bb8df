/**
 * One requirement argument of a pip requirements file, in any of pip's forms: a PEP 508 specifier, a
 * URL (archive or VCS), a local path or archive, or the target of `-e`. Names come from the specifier,
 * an `#egg=` fragment, a wheel file name, or a local project's static metadata.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pep503 } from '../../core/names.js';
import { localProjectName } from './local-project.js';
import type { MarkerEnvironment } from './markers.js';
import { interpretNamed, interpretRequirement, markerExclusion, redactCredentials, skipped, type Interpretation } from './pep508.js';

const URL_RE = /^(?:https?|ftp|file|(?:git|hg|svn|bzr)(?:\+[a-z-]+)?):/i;
const VCS_RE = /^(?:git|hg|svn|bzr)[+:]/i;
const ARCHIVE_RE = /\.(?:whl|zip|tar|tar\.gz|tgz|tar\.bz2|tbz|tar\.xz|txz|tar\.lz|tlz)$/i;
/** `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl` */
const WHEEL_RE = /^([^-]+)-([^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$/i;

export interface RequirementTarget {
  /** The argument as written (after `-e`, without options). */
  text: string;
  editable: boolean;
  source: string;
}

export interface TargetContext {
  /** pip resolves relative paths in requirement lines against its working directory: the project. */
  projectDir: string;
  markerEnv: MarkerEnvironment;
}

/** `name` from a `#egg=name[extras]` fragment. */
function eggName(url: string): string | undefined {
  const fragment = url.split('#')[1];
  const egg = fragment?.split('&').find((p) => p.startsWith('egg='));
  return egg?.slice('egg='.length).replace(/\[.*$/, '') || undefined;
}

function wheelFile(location: string): { name: string; version: string } | undefined {
  const base = location.split(/[#?]/)[0]!.split('/').pop() ?? '';
  const m = WHEEL_RE.exec(base);
  return m ? { name: m[1]!, version: m[2]! } : undefined;
}

function looksLikePath(text: string): boolean {
  return text.includes('/') || text.includes('\\') || text.trim().startsWith('.');
}

function stripExtras(text: string): string {
  return text.replace(/\[[^\]]*\]$/, '');
}

/** A `file:` URL's path: `file:///abs` is absolute, pip also accepts `file:relative`. */
function filePath(url: string): string {
  const withoutFragment = url.split('#')[0]!;
  return /^file:\/\//i.test(withoutFragment) ? fileURLToPath(withoutFragment) : withoutFragment.slice('file:'.length);
}

/** A target whose marker (if any) has already been found true. */
function named(raw: string, name: string, t: RequirementTarget, ctx: TargetContext, location: string, version?: string): Interpretation {
  return interpretNamed(raw, name, undefined, t.source, ctx.markerEnv, { version, id: `${pep503(name)} @ ${redactCredentials(location)}` });
}

async function localTarget(raw: string, location: string, t: RequirementTarget, ctx: TargetContext): Promise<Interpretation> {
  const egg = eggName(location);
  if (egg) return named(raw, egg, t, ctx, location);
  const wheel = wheelFile(location);
  if (wheel) return named(raw, wheel.name, t, ctx, location, wheel.version);
  const dir = path.resolve(ctx.projectDir, stripExtras(location.split('#')[0]!));
  const isDir = (await stat(dir).catch(() => undefined))?.isDirectory() ?? false;
  const name = isDir ? await localProjectName(dir) : undefined;
  if (name) return named(raw, name, t, ctx, location);
  const why = isDir ? 'no static name in its pyproject.toml or setup.cfg' : ARCHIVE_RE.test(location) ? 'a local archive' : 'no such directory';
  return skipped(raw, 'local-path', t.source, why);
}

async function urlTarget(raw: string, target: string, t: RequirementTarget, ctx: TargetContext): Promise<Interpretation> {
  // For URLs pip needs whitespace around the marker's ';', since URLs may contain ';'.
  const m = /^(\S+)(?:\s*;\s(.*)|\s+;(.*))?$/.exec(target);
  const url = m?.[1] ?? target;
  const marker = (m?.[2] ?? m?.[3])?.trim() || undefined;
  const excluded = markerExclusion(raw, marker, t.source, ctx.markerEnv);
  if (excluded) return excluded;
  const egg = eggName(url);
  if (egg) return named(raw, egg, t, ctx, url);
  const wheel = wheelFile(url);
  if (wheel) return named(raw, wheel.name, t, ctx, url, wheel.version);
  if (/^file:/i.test(url)) return localTarget(raw, filePath(url), t, ctx);
  return skipped(raw, VCS_RE.test(url) ? 'unnamed-vcs' : 'unnamed-url', t.source, 'the project name is unknown until pip downloads it (add #egg=<name> or use `<name> @ <url>`)');
}

export async function interpretTarget(t: RequirementTarget, ctx: TargetContext): Promise<Interpretation> {
  const raw = t.editable ? `-e ${t.text}` : t.text;
  if (URL_RE.test(t.text)) return urlTarget(raw, t.text, t, ctx);
  // pip cuts any other line at its first ';' (the marker) before reading the rest, so even
  // `name @ url;marker` without PEP 508's whitespace works.
  const [head, tail] = splitOnce(t.text, ';');
  const marker = tail?.trim() || undefined;
  const [beforeAt, afterAt] = splitOnce(head, '@');
  const directReference = afterAt !== undefined && !looksLikePath(beforeAt);
  if (t.editable || (!directReference && (looksLikePath(head) || ARCHIVE_RE.test(head.trim())))) {
    return markerExclusion(raw, marker, t.source, ctx.markerEnv) ?? localTarget(raw, head.trim(), t, ctx);
  }
  return interpretRequirement(marker === undefined ? head : `${head.trim()} ; ${marker}`, t.source, ctx.markerEnv, t.text);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
