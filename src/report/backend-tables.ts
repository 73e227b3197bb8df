/** The backend suite's tables (seed 002): A% and pass@k by level, pass@k, frameworks, marginal effects, decay, taxonomy. */
import type { BackendReport } from '../metrics/backend.js';
import type { ReportTable } from './csv-tables.js';
import { formatNumber as f } from './csv-number.js';

export function backendTables(b: BackendReport): ReportTable[] {
  return [
    {
      name: 'backend_levels',
      title: 'Backend: A% (strict, lenient) and pass@1 by constraint level',
      header: ['agent', 'level', 'runs', 'tasks', 'a_strict_pct', 'a_lenient_pct', 'pass1_pct'],
      rows: b.levels.map((r) => [r.agent, `L${r.level}`, String(r.runs), String(r.tasks), f(r.aStrictPct, 1), f(r.aLenientPct, 1), f(r.pass1Pct, 1)]),
    },
    {
      name: 'backend_pass_at_k',
      title: 'Backend: pass@k (unbiased estimator)',
      header: ['agent', 'k', 'tasks', 'pass_at_k_pct'],
      rows: b.passAtK.map((r) => [r.agent, String(r.k), String(r.tasks), f(r.passAtKPct, 1)]),
    },
    {
      name: 'backend_frameworks',
      title: 'Backend: A% and pass@1 by framework',
      header: ['agent', 'framework', 'runs', 'a_strict_pct', 'a_lenient_pct', 'pass1_pct'],
      rows: b.frameworks.map((r) => [r.agent, r.framework, String(r.runs), f(r.aStrictPct, 1), f(r.aLenientPct, 1), f(r.pass1Pct, 1)]),
    },
    {
      name: 'backend_marginal_effects',
      title: 'Backend: marginal effect of each constraint on strict A% (matched pairs, ± standard error)',
      header: ['agent', 'constraint', 'pairs', 'delta_pct', 'std_err'],
      rows: b.marginal.map((r) => [r.agent, r.constraint, String(r.pairs), f(r.deltaPct, 2), f(r.stdErr, 2)]),
    },
    {
      name: 'backend_decay',
      title: 'Backend: constraint decay, strict A% from L0 to L3',
      header: ['agent', 'l0_pct', 'l3_pct', 'drop_pts', 'relative_pct'],
      rows: b.decay.map((r) => [r.agent, f(r.l0Pct, 1), f(r.l3Pct, 1), f(r.dropPts, 1), f(r.relativePct, 1)]),
    },
    {
      name: 'backend_taxonomy',
      title: 'Backend: failure taxonomy (coarse: % of failed runs; root cause: % of judged logic errors)',
      header: ['agent', 'kind', 'category', 'count', 'share_pct'],
      rows: b.taxonomy.map((r) => [r.agent, r.kind, r.category, String(r.count), f(r.sharePct, 1)]),
    },
  ];
}
