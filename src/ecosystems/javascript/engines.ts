/**
 * Whether a Node.js version satisfies a package.json `engines.node` range, in npm's range syntax (node-semver):
 * `||` alternatives of space-separated comparators (`>=18 <21`), `^`, `~`, x-ranges (`20.x`, `*`) and hyphen ranges
 * (`18 - 20`). Pre-release tags are not compared. Undefined for a range this reading does not understand.
 */
type Triple = [number, number, number];

/** A partial version (`20`, `20.1`, `20.x`): its numbers and how many were given. */
function partial(text: string): { v: Triple; given: number } | undefined {
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$/.exec(text);
  if (!m) return undefined;
  const parts = [m[1], m[2], m[3]];
  const given = parts.findIndex((p) => p === undefined || /^[xX*]$/.test(p));
  const n = given < 0 ? 3 : given;
  return { v: [0, 1, 2].map((i) => (i < n ? Number(parts[i]) : 0)) as Triple, given: n };
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The upper bound (exclusive) of a partial version given `given` numbers: `20` → 21.0.0, `20.1` → 20.2.0. */
function next(v: Triple, given: number): Triple {
  if (given === 0) return [Infinity, 0, 0];
  const out: Triple = [...v];
  out[given - 1]! += 1;
  for (let i = given; i < 3; i++) out[i] = 0;
  return out;
}

type Test = (v: Triple) => boolean;

function comparator(text: string): Test[] | undefined {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.+)$/.exec(text);
  const p = m ? partial(m[2]!) : undefined;
  if (!m || !p) return undefined;
  const { v, given } = p;
  const lo: Test = (x) => compare(x, v) >= 0;
  switch (m[1]) {
    case '>=':
      return [lo];
    case '>':
      return [(x) => compare(x, given === 3 ? v : next(v, given)) >= (given === 3 ? 1 : 0)];
    case '<':
      return [(x) => compare(x, v) < 0];
    case '<=':
      return [(x) => compare(x, next(v, given)) < 0];
    case '~':
      return [lo, (x) => compare(x, next(v, Math.min(Math.max(given, 1), 2))) < 0];
    case '^': {
      const first = v.findIndex((n, i) => n !== 0 || i === given - 1);
      return [lo, (x) => compare(x, next(v, Math.min(first < 0 ? given : first + 1, Math.max(given, 1)))) < 0];
    }
    default:
      return [lo, (x) => compare(x, next(v, given)) < 0];
  }
}

function alternative(text: string): Test[] | undefined {
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
  if (hyphen) {
    const [a, b] = [comparator(`>=${hyphen[1]}`), comparator(`<=${hyphen[2]}`)];
    return a && b ? [...a, ...b] : undefined;
  }
  if (text === '') return [];
  const tests = text.replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).map(comparator);
  return tests.every((t) => t !== undefined) ? tests.flat() : undefined;
}

export function nodeRangeSatisfied(range: string, version: string): boolean | undefined {
  const have = partial(version.trim());
  if (!have || have.given < 1) return undefined;
  const alternatives = range.split('||').map((a) => alternative(a.trim()));
  if (alternatives.some((a) => a === undefined)) return undefined;
  return alternatives.some((tests) => tests!.every((t) => t(have.v)));
}
