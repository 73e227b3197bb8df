/** The backend suite's figures: strict A% by constraint level (the decay), and A% by framework. */
import type { BackendReport } from '../metrics/backend.js';
import { ALL_AGENTS } from '../metrics/backend.js';
import { chart, missing, type Figure } from './figure.js';

const DECAY = 'Backend — constraint decay: strict A% by level';
const FRAMEWORKS = 'Backend — A% by framework';

/** No figures without backend runs: the report then has no backend section at all. */
export function backendFigures(b: BackendReport | undefined): Figure[] {
  if (!b) return [];
  if (b.runs === 0) {
    const why = 'No backend runs in the store (envproof run --suite backend).';
    return [missing('figB1', DECAY, why), missing('figB2', FRAMEWORKS, why)];
  }
  const agents = b.agents.length > 1 ? [...b.agents, ALL_AGENTS] : b.agents;
  const levels = b.levels.filter((r) => agents.includes(r.agent)).map((r) => ({ agent: r.agent, level: `L${r.level}`, a: r.aStrictPct, lenient: r.aLenientPct }));
  const frameworks = b.frameworks.filter((r) => r.agent === ALL_AGENTS).flatMap((r) => [
    { framework: r.framework, variant: 'strict', a: r.aStrictPct },
    { framework: r.framework, variant: 'lenient', a: r.aLenientPct },
  ]);
  return [
    chart('figB1', DECAY, 'Mean strict A% (assertions passed; 0 when a verifier fails) per level, one line per agent.', {
      width: 420,
      height: 260,
      data: { values: levels },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'level', type: 'ordinal', title: 'constraint level', sort: ['L0', 'L1', 'L2', 'L3'] },
        y: { field: 'a', type: 'quantitative', title: 'A% (strict)', scale: { domain: [0, 100] } },
        color: { field: 'agent', type: 'nominal', title: 'agent' },
        tooltip: [{ field: 'agent' }, { field: 'level' }, { field: 'a', format: '.1f', title: 'strict' }, { field: 'lenient', format: '.1f' }],
      },
    }),
    chart('figB2', FRAMEWORKS, 'Mean A% per framework over all levels and agents, with and without the verifiers.', {
      width: 420,
      height: 260,
      data: { values: frameworks },
      mark: 'bar',
      encoding: {
        x: { field: 'framework', type: 'nominal', title: 'framework', sort: '-y' },
        xOffset: { field: 'variant' },
        y: { field: 'a', type: 'quantitative', title: 'A%', scale: { domain: [0, 100] } },
        color: { field: 'variant', type: 'nominal', title: 'A%', scale: { range: ['#4575b4', '#91bfdb'] } },
      },
    }),
  ];
}
