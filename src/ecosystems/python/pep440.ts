/**
 * PEP 440 versions and version specifiers: just enough to evaluate environment markers and to tell a
 * pin (`==1.2.3`) from a range. Comparison follows the PEP's ordering (dev < pre < final < post,
 * local versions above their public version).
 */

export interface Version {
  epoch: number;
  release: number[];
  pre?: { kind: 'a' | 'b' | 'rc'; n: number };
  post?: number;
  dev?: number;
  /** Segments of the local label, numbers where numeric. */
  local?: (number | string)[];
}

const VERSION_RE =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(alpha|beta|preview|pre|rc|a|b|c)[-_.]?(\d+)?)?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?(?:[-_.]?(dev)[-_.]?(\d+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$/i;

const PRE_KIND: Record<string, 'a' | 'b' | 'rc'> = { a: 'a', alpha: 'a', b: 'b', beta: 'b', c: 'rc', rc: 'rc', pre: 'rc', preview: 'rc' };

export function parseVersion(text: string): Version | undefined {
  const m = VERSION_RE.exec(text.trim());
  if (!m) return undefined;
  const [, epoch, release, preKind, preN, postImplicit, postKind, postN, devKind, devN, local] = m;
  const v: Version = { epoch: Number(epoch ?? 0), release: release!.split('.').map(Number) };
  if (preKind) v.pre = { kind: PRE_KIND[preKind.toLowerCase()]!, n: Number(preN ?? 0) };
  if (postImplicit !== undefined) v.post = Number(postImplicit);
  else if (postKind) v.post = Number(postN ?? 0);
  if (devKind) v.dev = Number(devN ?? 0);
  if (local) v.local = local.toLowerCase().split(/[-_.]/).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return v;
}

function compareNumberLists(a: readonly number[], b: readonly number[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

const PRE_ORDER = { a: 0, b: 1, rc: 2 } as const;

/** Sort keys for the pre-release slot: a dev release of a final sorts before its pre-releases. */
function preKey(v: Version): number[] {
  if (v.pre) return [0, PRE_ORDER[v.pre.kind], v.pre.n];
  if (v.post === undefined && v.dev !== undefined) return [-1];
  return [1];
}

function compareLocal(a: Version['local'], b: Version['local']): number {
  if (!a || !b) return a ? 1 : b ? -1 : 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    // Numeric segments sort above alphanumeric ones.
    if (typeof x !== typeof y) return typeof x === 'number' ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

export function compareVersions(a: Version, b: Version): number {
  return (
    Math.sign(a.epoch - b.epoch) ||
    compareNumberLists(a.release, b.release) ||
    compareNumberLists(preKey(a), preKey(b)) ||
    compareNumberLists([a.post ?? -1], [b.post ?? -1]) ||
    compareNumberLists([a.dev ?? Infinity], [b.dev ?? Infinity]) ||
    compareLocal(a.local, b.local)
  );
}

export type SpecifierOperator = '~=' | '==' | '!=' | '<=' | '>=' | '<' | '>' | '===';

export interface Specifier {
  op: SpecifierOperator;
  /** The version text as written (for `===`, any string). */
  text: string;
  /** Parsed version; for `==`/`!=` with a trailing `.*`, the prefix. Absent only for `===`. */
  version?: Version;
  wildcard: boolean;
}

const SPECIFIER_RE = /^\s*(~=|===|==|!=|<=|>=|<|>)\s*(\S+?)\s*$/;

/** One clause such as `>=3.8` or `==2.*`; undefined when it is not valid PEP 440. */
export function parseSpecifier(clause: string): Specifier | undefined {
  const m = SPECIFIER_RE.exec(clause);
  if (!m) return undefined;
  const op = m[1] as SpecifierOperator;
  const text = m[2]!;
  if (op === '===') return { op, text, wildcard: false };
  const wildcard = text.endsWith('.*');
  if (wildcard && op !== '==' && op !== '!=') return undefined;
  const version = parseVersion(wildcard ? text.slice(0, -2) : text);
  if (!version) return undefined;
  if (wildcard && (version.pre || version.post !== undefined || version.dev !== undefined || version.local)) return undefined;
  if (version.local && op !== '==' && op !== '!=') return undefined;
  if (op === '~=' && version.release.length < 2) return undefined;
  return { op, text, version, wildcard };
}

/** A comma-separated specifier set; undefined when any clause is invalid. An empty string is the empty set. */
export function parseSpecifierSet(text: string): Specifier[] | undefined {
  if (text.trim() === '') return [];
  const clauses = text.split(',').map(parseSpecifier);
  return clauses.every((c) => c !== undefined) ? (clauses as Specifier[]) : undefined;
}

function publicPart(v: Version): Version {
  return { ...v, local: undefined };
}

function baseRelease(v: Version): Version {
  return { epoch: v.epoch, release: v.release };
}

function isPre(v: Version): boolean {
  return v.pre !== undefined || v.dev !== undefined;
}

function prefixMatches(prefix: Version, candidate: Version): boolean {
  return prefix.epoch === candidate.epoch && prefix.release.every((n, i) => (candidate.release[i] ?? 0) === n);
}

/** Whether `candidate` satisfies one clause. Pre-releases are accepted (as marker evaluation requires). */
export function specifierContains(spec: Specifier, candidate: Version, candidateText: string): boolean {
  if (spec.op === '===') return spec.text.toLowerCase() === candidateText.trim().toLowerCase();
  const v = spec.version!;
  switch (spec.op) {
    case '==':
    case '!=': {
      const equal = spec.wildcard
        ? prefixMatches(v, candidate)
        : compareVersions(v.local ? candidate : publicPart(candidate), v) === 0;
      return spec.op === '==' ? equal : !equal;
    }
    case '<=':
      return compareVersions(publicPart(candidate), v) <= 0;
    case '>=':
      return compareVersions(publicPart(candidate), v) >= 0;
    case '<':
      // `<3.0` does not admit 3.0's own pre-releases unless it names one.
      return (
        compareVersions(candidate, v) < 0 &&
        !(!isPre(v) && isPre(candidate) && compareVersions(baseRelease(candidate), baseRelease(v)) === 0)
      );
    case '>': {
      // `>3.0` admits neither 3.0's post-releases (unless it names one) nor its local versions.
      const sameBase = compareVersions(baseRelease(candidate), baseRelease(v)) === 0;
      return (
        compareVersions(candidate, v) > 0 &&
        !(v.post === undefined && candidate.post !== undefined && sameBase) &&
        !(candidate.local && sameBase)
      );
    }
    case '~=': {
      const prefix: Version = { epoch: v.epoch, release: v.release.slice(0, -1) };
      return compareVersions(publicPart(candidate), v) >= 0 && prefixMatches(prefix, candidate);
    }
  }
}

/** The pinned version when the set is exactly one `==` (without wildcard) or `===` clause. */
export function pinnedVersion(specs: readonly Specifier[]): string | undefined {
  const only = specs.length === 1 ? specs[0] : undefined;
  if (!only) return undefined;
  return only.op === '===' || (only.op === '==' && !only.wildcard) ? only.text : undefined;
}
