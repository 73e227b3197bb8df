/**
 * The paper's checked claims (docs/paper-data.md §5), recomputed from an AggregateReport: each with its name as it appears
 * in `results/verification.csv`, the decimals it is printed with and the tolerance it is compared with.
 */
import type { EcosystemId } from '../core/types.js';
import { ecosystem } from '../ecosystems/index.js';
import { ALL_AGENTS, type AggregateReport } from '../metrics/aggregate.js';
import { ALL_PAIRS } from '../metrics/aggregate-agreement.js';
import { pyRound } from './csv-number.js';

/**
 * `input`: a count of what the metrics were computed from (runs, tasks per domain), not a result; `threshold`: a
 * bound the data must clear (≥), not a value. `--check` reports both apart from the metric values.
 */
export type ClaimKind = 'metric' | 'input' | 'threshold';

export interface Claim {
  name: string;
  /** Default `metric`. */
  kind?: ClaimKind;
  /** Unrounded; null when undefined (written `-`). */
  value: number | null;
  decimals: number;
  tolerance: number;
  /** Compare the value rounded to this many decimals instead of the unrounded one (the mismatch rates: 3). */
  compareAt?: number;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function convergenceClaims(r: AggregateReport): Claim[] {
  return r.convergence
    .filter((c) => c.agent !== ALL_AGENTS)
    .flatMap((c) => [
      { name: `SR0 ${c.agent} ${c.language} (%)`, value: c.sr0Pct, decimals: 0, tolerance: 0.5 },
      { name: `Final SR ${c.agent} ${c.language} (%)`, value: c.finalSrPct, decimals: 0, tolerance: 0.5 },
      { name: `Repaired share of failed first attempts ${c.agent} ${c.language} (%)`, value: c.repairedPct, decimals: 0, tolerance: 0.5 },
    ]);
}

function inflationClaims(r: AggregateReport): Claim[] {
  return r.inflation
    .filter((i) => i.agent === ALL_AGENTS)
    .flatMap((i) => [
      { name: `Inflation rho mean ${i.language}`, value: i.mean, decimals: 2, tolerance: 0.005 },
      { name: `Inflation rho median ${i.language}`, value: i.median, decimals: 2, tolerance: 0.05 },
    ]);
}

/** The paper states these in its text ("about 5%"), hence the claim names and the wider tolerances. */
function mismatchClaims(r: AggregateReport): Claim[] {
  const pooled = (language: EcosystemId) => r.mismatch.find((m) => m.agent === ALL_AGENTS && m.language === language);
  const claims: Claim[] = [];
  for (const language of ['python', 'java'] as const) {
    const m = pooled(language);
    if (m) claims.push({ name: `${ecosystem(language).displayName} phantom rate (text says 'about 5%')`, value: m.phantom, decimals: 2, tolerance: 0.01, compareAt: 3 });
  }
  const js = pooled('javascript');
  if (js) {
    for (const kind of ['phantom', 'hidden', 'bloat'] as const) {
      claims.push({ name: `JavaScript ${kind} rate (text says 'about')`, value: js[kind], decimals: 2, tolerance: 0.015, compareAt: 3 });
    }
  }
  return claims;
}

function table4Claims(r: AggregateReport): Claim[] {
  return r.manifestAccuracy.flatMap((a) => [
    { name: `Table 4 P ${a.agent} ${a.language}`, value: a.precision, decimals: 3, tolerance: 0.0015 },
    { name: `Table 4 R ${a.agent} ${a.language}`, value: a.recall, decimals: 3, tolerance: 0.0015 },
    { name: `Table 4 F1 ${a.agent} ${a.language}`, value: a.f1, decimals: 3, tolerance: 0.0015 },
  ]);
}

function crossAgentClaims(r: AggregateReport): Claim[] {
  const claims: Claim[] = r.crossAgent.map((c) =>
    c.pair === ALL_PAIRS
      ? { name: `Complete disjointness rate ${c.language} (%)`, value: c.cdrPct, decimals: 1, tolerance: 0.05 }
      : {
          name: `Cross-agent Jaccard ${c.pair.split('-').map(capitalise).join('-')} ${ecosystem(c.language).displayName}`,
          value: c.meanJaccard,
          decimals: 3,
          tolerance: 0.0015,
        },
  );
  claims.push({ name: 'Complete disjointness rate, macro average (%)', value: r.cdrMacroPct, decimals: 1, tolerance: 0.05 });
  return claims;
}

function table5Claims(r: AggregateReport): Claim[] {
  return r.stability
    .filter((s) => s.agent === ALL_AGENTS)
    .flatMap((s) => [
      { name: `Table 5 mean intra-agent J ${s.language}`, value: s.meanJaccard, decimals: 3, tolerance: 0.0015 },
      { name: `Table 5 median J ${s.language}`, value: s.medianJaccard, decimals: 3, tolerance: 0.0015 },
      { name: `Table 5 tasks with ${s.trials.length} successful trials ${s.language}`, value: s.nTasks, decimals: 0, tolerance: 0 },
      { name: `Table 5 unanimous (UCR count) ${s.language}`, value: s.unanimous, decimals: 0, tolerance: 0 },
      { name: `Table 5 mean vocabulary union ${s.language}`, value: s.meanUnion, decimals: 1, tolerance: 0.05 },
      { name: `Table 5 mean unanimous core ${s.language}`, value: s.meanCore, decimals: 1, tolerance: 0.05 },
    ]);
}

function table6Claims(r: AggregateReport): Claim[] {
  return r.syslib.flatMap((s) => [
    { name: `Table 6 C++ first-attempt failures ${s.agent}`, value: s.firstAttemptFailures, decimals: 0, tolerance: 0 },
    { name: `Table 6 SysLib failures ${s.agent}`, value: s.syslib, decimals: 0, tolerance: 0 },
    { name: `Table 6 SLAR ${s.agent} (%)`, value: s.slarPct, decimals: 1, tolerance: 0.05 },
    { name: `Table 6 recovered ${s.agent}`, value: s.recovered, decimals: 0, tolerance: 0 },
    { name: `Table 6 EGAR ${s.agent} (%)`, value: s.egarPct, decimals: 1, tolerance: 0.05 },
  ]);
}

function domainClaims(r: AggregateReport): Claim[] {
  const cells = r.domainConvergence.filter((d) => d.agent !== ALL_AGENTS);
  // One claim per agent and domain: the named domain's SR0 if it is the computed weakest, else undefined.
  const claims: Claim[] = cells.map((d) => {
    const weakest = r.weakestDomains.find((w) => w.agent === d.agent);
    return {
      name: `Weakest first-attempt domain ${d.agent}: ${d.domain} (%)`,
      value: weakest?.domain === d.domain ? weakest.sr0Pct : null,
      decimals: 0,
      tolerance: 0.5,
    };
  });
  const sr0 = cells.flatMap((d) => (d.sr0Pct === null ? [] : [d.sr0Pct]));
  const finalSr = cells.flatMap((d) => (d.finalSrPct === null ? [] : [d.finalSrPct]));
  const lowestFinal = finalSr.length === 0 ? null : Math.min(...finalSr);
  claims.push(
    { name: 'Domain SR0 range, low (%)', value: sr0.length ? Math.min(...sr0) : null, decimals: 0, tolerance: 0.5 },
    { name: 'Domain SR0 range, high (%)', value: sr0.length ? Math.max(...sr0) : null, decimals: 0, tolerance: 0.5 },
    {
      name: 'Lowest final SR over agent-domain pairs, at least (%)',
      kind: 'threshold',
      value: lowestFinal === null ? null : lowestFinal >= 95 ? 95 : lowestFinal,
      decimals: 0,
      tolerance: 0,
    },
  );
  return claims;
}

function countClaims(r: AggregateReport): Claim[] {
  return [
    ...r.udr
      .filter((u) => u.language === 'macro' && u.agent !== ALL_AGENTS)
      .map((u) => ({ name: `Unnecessary dependency rate, ${capitalise(u.agent)} macro average (%)`, value: u.udrPct, decimals: 1, tolerance: 0.05 })),
    { name: 'C++ successful manifests declaring nlohmann_json', value: r.counts.cppNlohmannJson, decimals: 0, tolerance: 0 },
    { name: 'Total evaluation runs', kind: 'input', value: r.counts.totalRuns, decimals: 0, tolerance: 0 },
    { name: 'Primary runs', kind: 'input', value: r.counts.primaryRuns, decimals: 0, tolerance: 0 },
    ...r.counts.tasksPerDomain.map((d): Claim => ({ name: `Table 1 tasks in domain ${d.domain}`, kind: 'input', value: d.tasks, decimals: 0, tolerance: 0 })),
  ];
}

/** Every claim envproof can recompute, keyed by its verification.csv name. */
export function recomputeClaims(report: AggregateReport): Map<string, Claim> {
  const all = [
    ...convergenceClaims(report),
    ...inflationClaims(report),
    ...mismatchClaims(report),
    ...table4Claims(report),
    ...crossAgentClaims(report),
    ...table5Claims(report),
    ...table6Claims(report),
    ...domainClaims(report),
    ...countClaims(report),
  ];
  return new Map(all.map((c) => [c.name, c]));
}

/** A claim's value as verification.csv writes it: fixed decimals, `-` when undefined. */
export function formatClaim(value: number | null, decimals: number): string {
  return value === null ? '-' : pyRound(value, decimals).toFixed(decimals);
}
