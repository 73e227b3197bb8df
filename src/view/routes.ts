/** The view's URLs: one per page, so that a run, a file or a re-run can be linked. Built and parsed here only. */
import type { RunSource } from '../metrics/aggregate-types.js';
import type { RunKey } from '../store/types.js';
import { isEcosystemId } from '../ecosystems/index.js';

export type Route =
  | { page: 'runs' }
  | { page: 'run'; key: RunKey }
  | { page: 'file'; tree: string; path: string }
  | { page: 'repro' }
  | { page: 'instance'; corpus: string; instanceId: string }
  | { page: 'backend' }
  | { page: 'figures' }
  | { page: 'stamp' }
  | { page: 'asset'; name: string };

const SOURCES: readonly RunSource[] = ['envgap-csv', 'envproof'];
const segment = encodeURIComponent;

export function runHref(key: RunKey): string {
  return `/runs/${[key.source, key.agent, key.language, key.taskId, String(key.trial)].map(segment).join('/')}`;
}

export function fileHref(tree: string, file: string, line?: number): string {
  return `/trees/${tree}/${file.split('/').map(segment).join('/')}${line ? `#L${line}` : ''}`;
}

export function instanceHref(corpus: string, instanceId: string): string {
  return `/repro/${segment(corpus)}/${segment(instanceId)}`;
}

/** The page a path names; undefined for anything else (a 404). */
export function route(pathname: string): Route | undefined {
  let parts: string[];
  try {
    parts = pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [first, ...rest] = parts;
  if (pathname === '/' ) return { page: 'runs' };
  if (rest.length === 0) {
    const single = { repro: 'repro', backend: 'backend', figures: 'figures' } as const;
    return first && first in single ? { page: single[first as keyof typeof single] } : undefined;
  }
  if (first === 'runs' && rest.length === 5) {
    const [source, agent, language, taskId, trial] = rest as [string, string, string, string, string];
    if (!SOURCES.includes(source as RunSource) || !isEcosystemId(language) || !/^[1-9]\d*$/.test(trial)) return undefined;
    return { page: 'run', key: { source: source as RunSource, agent, language, taskId, trial: Number(trial) } };
  }
  if (first === 'trees' && rest.length >= 2 && /^[0-9a-f]{64}$/.test(rest[0]!)) return { page: 'file', tree: rest[0]!, path: rest.slice(1).join('/') };
  if (first === 'repro' && rest.length === 2) return { page: 'instance', corpus: rest[0]!, instanceId: rest[1]! };
  if (first === 'api' && rest.length === 1 && rest[0] === 'stamp') return { page: 'stamp' };
  if (first === 'assets' && rest.length === 1) return { page: 'asset', name: rest[0]! };
  return undefined;
}
