/** `report --check`: compare a verification.csv's published values with the recomputed ones (docs/paper-data.md §5). */
import { readFileSync } from 'node:fs';
import { EnvproofError, errorMessage } from '../core/errors.js';
import type { AggregateReport } from '../metrics/aggregate.js';
import { CsvSyntaxError, parseCsv } from '../paper-data/csv.js';
import { formatClaim, recomputeClaims, type ClaimKind } from './check-claims.js';

export interface CheckResult {
  claim: string;
  /** What the claim is: a metric value, an input count, or a threshold (`unknown` for a claim envproof does not know). */
  kind: ClaimKind | 'unknown';
  /** The published value as written (`-` when the paper gives none). */
  published: string;
  /** The recomputed value formatted like the published one; `-` when undefined or the claim is unknown. */
  recomputed: string;
  ok: boolean;
  /** Why a row is not ok beyond a difference in value. */
  note?: string;
}

interface PublishedClaim {
  line: number;
  claim: string;
  paper: string;
}

export function readVerification(file: string): PublishedClaim[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new EnvproofError(`cannot read ${file}: ${errorMessage(err)}`);
  }
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new EnvproofError(`${file}:${err.line}: ${err.message}`);
    throw err;
  }
  const header = records[0]?.fields ?? [];
  const claimCol = header.indexOf('claim');
  const paperCol = header.indexOf('paper');
  if (claimCol === -1 || paperCol === -1) {
    throw new EnvproofError(`${file}:1: header must have columns claim and paper`, 'Pass the paper\'s results/verification.csv.');
  }
  return records.slice(1).map((r) => {
    const claim = r.fields[claimCol];
    const paper = r.fields[paperCol];
    if (claim === undefined || paper === undefined) throw new EnvproofError(`${file}:${r.line}: missing claim or paper value`);
    return { line: r.line, claim, paper: paper.trim() };
  });
}

function parsePublished(text: string): number | null | undefined {
  if (text === '-') return null;
  const v = Number(text);
  return text === '' || Number.isNaN(v) ? undefined : v;
}

// Differences within this much of the tolerance are the binary floats' noise, not a mismatch.
const EPSILON = 1e-9;

export interface CheckOutcome {
  /** One per claim of the file, in its order. */
  results: CheckResult[];
  /** Claims envproof recomputes, with a value, that the file does not hold. */
  missing: { claim: string; recomputed: string }[];
}

export function checkClaims(report: AggregateReport, published: readonly PublishedClaim[]): CheckOutcome {
  const claims = recomputeClaims(report);
  const results = published.map(({ claim, paper }): CheckResult => {
    const c = claims.get(claim);
    if (!c) return { claim, kind: 'unknown', published: paper, recomputed: '-', ok: false, note: 'unknown claim' };
    const kind = c.kind ?? 'metric';
    const recomputed = formatClaim(c.value, c.decimals);
    const want = parsePublished(paper);
    if (want === undefined) return { claim, kind, published: paper, recomputed, ok: false, note: 'published value is not a number' };
    if (want === null || c.value === null) return { claim, kind, published: paper, recomputed, ok: want === c.value };
    const got = c.compareAt === undefined ? c.value : Number(formatClaim(c.value, c.compareAt));
    return { claim, kind, published: paper, recomputed, ok: Math.abs(got - want) <= c.tolerance + EPSILON };
  });
  const inFile = new Set(published.map((p) => p.claim));
  const missing = [...claims.values()]
    .filter((c) => !inFile.has(c.name) && c.value !== null)
    .map((c) => ({ claim: c.name, recomputed: formatClaim(c.value, c.decimals) }));
  return { results, missing };
}
