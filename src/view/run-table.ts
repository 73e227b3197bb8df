/**
 * The runs table: one row per run with its per-project metrics, filtered, counted per filter value, sorted and cut
 * into pages on the server (the browser only ever receives one page). Pure: the runs come in, a page comes out.
 */
import { UsageError } from '../core/errors.js';
import { projectMetrics } from '../metrics/project.js';
import type { RunSource } from '../metrics/aggregate-types.js';
import type { StoredRun } from '../store/types.js';

export const PAGE_SIZE = 50;

export interface RunRow {
  run: StoredRun;
  /** Whether the run is a backend run (it has behavioural evaluations): kept out of the environment figures. */
  backend: boolean;
  n1: number | null;
  /** n2, n3, ρ and F1 exist only for a run that ended successfully (D2 and D3 are its final attempt's). */
  n2: number | null;
  n3: number | null;
  rho: number | null;
  f1: number | null;
  /** The run's value of each filter (computed once: the counts look at every run for every filter). */
  values: Record<FilterId, string>;
}

type Metrics = Omit<RunRow, 'values'>;

function metrics(run: StoredRun, backend: boolean): Metrics {
  const n1 = run.declared === null ? null : run.declared.length;
  if (!run.finalSuccess) return { run, backend, n1, n2: null, n3: null, rho: null, f1: null };
  const m = projectMetrics(new Set(run.declared ?? []), new Set(run.installed), new Set(run.traced));
  return { run, backend, n1, n2: m.n2, n3: m.n3, rho: run.declared === null ? null : m.inflation, f1: run.declared === null ? null : m.f1 };
}

export function runRow(run: StoredRun, backend: boolean): RunRow {
  const row = metrics(run, backend);
  return { ...row, values: Object.fromEntries(FILTER_IDS.map((id) => [id, FILTERS[id].of(row)])) as Record<FilterId, string> };
}

/** The filters, each one value of a dimension. The source is always one: sources are never mixed, as in `report`. */
export const FILTERS = {
  agent: { title: 'agent', of: (r: Metrics) => r.run.agent },
  language: { title: 'language', of: (r: Metrics) => r.run.language },
  task: { title: 'task', of: (r: Metrics) => r.run.taskId },
  status: { title: 'status', of: (r: Metrics) => r.run.status ?? 'done' },
  final: { title: 'final success', of: (r: Metrics) => (r.run.finalSuccess ? 'yes' : 'no') },
  error: { title: 'first error class', of: (r: Metrics) => r.run.initialErrorType ?? '—' },
  kind: { title: 'kind', of: (r: Metrics) => (r.backend ? 'backend' : 'environment') },
} as const;

export type FilterId = keyof typeof FILTERS;
export const FILTER_IDS = Object.keys(FILTERS) as FilterId[];

type Cell = string | number | boolean | null;

export const COLUMNS = {
  agent: { title: 'agent', of: (r: RunRow): Cell => r.run.agent },
  task: { title: 'task', of: (r: RunRow): Cell => r.run.taskId },
  language: { title: 'language', of: (r: RunRow): Cell => r.run.language },
  trial: { title: 'trial', of: (r: RunRow): Cell => r.run.trial },
  status: { title: 'status', of: (r: RunRow): Cell => r.run.status ?? 'done' },
  first: { title: 'first success', of: (r: RunRow): Cell => r.run.firstSuccess },
  final: { title: 'final success', of: (r: RunRow): Cell => r.run.finalSuccess },
  depth: { title: 'repair depth', of: (r: RunRow): Cell => r.run.repairDepth },
  error: { title: 'first error class', of: (r: RunRow): Cell => r.run.initialErrorType },
  n1: { title: 'n1', of: (r: RunRow): Cell => r.n1 },
  n2: { title: 'n2', of: (r: RunRow): Cell => r.n2 },
  n3: { title: 'n3', of: (r: RunRow): Cell => r.n3 },
  rho: { title: 'ρ', of: (r: RunRow): Cell => r.rho },
  f1: { title: 'F1', of: (r: RunRow): Cell => r.f1 },
} as const;

export type ColumnId = keyof typeof COLUMNS;
export const COLUMN_IDS = Object.keys(COLUMNS) as ColumnId[];

export interface TableQuery {
  source: RunSource;
  filters: Partial<Record<FilterId, string>>;
  sort?: ColumnId;
  descending: boolean;
  /** 1-based. */
  page: number;
}

const SOURCES: readonly RunSource[] = ['envproof', 'envgap-csv'];

/** The query of a URL; `present` are the sources the store holds (the default is the first of them). */
export function parseTableQuery(params: URLSearchParams, present: readonly RunSource[]): TableQuery {
  const source = params.get('source') ?? present[0] ?? 'envproof';
  if (!SOURCES.includes(source as RunSource)) throw new UsageError(`unknown source "${source}": envproof or envgap-csv`);
  const filters: TableQuery['filters'] = {};
  for (const id of FILTER_IDS) {
    const value = params.get(id);
    if (value !== null && value !== '') filters[id] = value;
  }
  const sort = params.get('sort') ?? undefined;
  if (sort !== undefined && !COLUMN_IDS.includes(sort as ColumnId)) throw new UsageError(`unknown sort column "${sort}": one of ${COLUMN_IDS.join(', ')}`);
  const dir = params.get('dir') ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') throw new UsageError(`dir must be asc or desc, not "${dir}"`);
  return { source: source as RunSource, filters, ...(sort ? { sort: sort as ColumnId } : {}), descending: dir === 'desc', page: parsePage(params) };
}

/** The `page` parameter of a list: 1-based, 1 when absent. */
export function parsePage(params: URLSearchParams): number {
  const page = params.get('page') ?? '1';
  if (!/^[1-9]\d{0,8}$/.test(page)) throw new UsageError(`page must be a positive integer, not "${page}"`);
  return Number(page);
}

/** One page of a list (the last one when `page` is beyond it). */
export function pageOf<T>(items: readonly T[], page: number): { items: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  const shown = Math.min(page, pages);
  return { items: items.slice((shown - 1) * PAGE_SIZE, shown * PAGE_SIZE), page: shown, pages };
}

/** The query as URL parameters (what a link to this table, or another page of it, carries). */
export function queryParams(q: TableQuery, change: Partial<TableQuery> = {}): URLSearchParams {
  const next = { ...q, ...change };
  const params = new URLSearchParams({ source: next.source });
  for (const [id, value] of Object.entries(next.filters)) if (value !== undefined) params.set(id, value);
  if (next.sort) params.set('sort', next.sort);
  if (next.descending) params.set('dir', 'desc');
  if (next.page > 1) params.set('page', String(next.page));
  return params;
}

export function matches(row: RunRow, q: Pick<TableQuery, 'source' | 'filters'>): boolean {
  return row.run.source === q.source && FILTER_IDS.every((id) => q.filters[id] === undefined || row.values[id] === q.filters[id]);
}

/** Nulls last whichever the direction; booleans and numbers by value, text by code point. */
function compare(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'string' || typeof b === 'string') return String(a) < String(b) ? -1 : 1;
  return Number(a) - Number(b);
}

export interface TablePage {
  rows: RunRow[];
  /** Rows the filters keep. */
  total: number;
  page: number;
  pages: number;
  /** Per filter, each value's count among the rows the other filters keep, most frequent first. */
  facets: Record<FilterId, [string, number][]>;
  /** Runs per source in the store. */
  sources: [RunSource, number][];
}

export function tablePage(all: readonly RunRow[], q: TableQuery): TablePage {
  // One pass: a row every filter keeps is kept and counted for every filter; a row that fails one filter only is
  // counted for that filter (its other values are what the other filters chose).
  const kept: RunRow[] = [];
  const counts = Object.fromEntries(FILTER_IDS.map((id) => [id, new Map<string, number>()])) as Record<FilterId, Map<string, number>>;
  const count = (id: FilterId, r: RunRow) => counts[id].set(r.values[id], (counts[id].get(r.values[id]) ?? 0) + 1);
  const chosen = FILTER_IDS.filter((id) => q.filters[id] !== undefined);
  const perSource = new Map<RunSource, number>();
  for (const r of all) {
    perSource.set(r.run.source, (perSource.get(r.run.source) ?? 0) + 1);
    if (r.run.source !== q.source) continue;
    let failed: FilterId | undefined;
    let fails = 0;
    for (const id of chosen) {
      if (r.values[id] === q.filters[id]) continue;
      failed = id;
      if (++fails > 1) break;
    }
    if (fails === 0) {
      kept.push(r);
      for (const id of FILTER_IDS) count(id, r);
    } else if (fails === 1) count(failed!, r);
  }
  if (q.sort) {
    const of = COLUMNS[q.sort].of;
    const sign = q.descending ? -1 : 1;
    // Nulls stay last in both directions; the store's order breaks ties.
    kept.sort((a, b) => {
      const [x, y] = [of(a), of(b)];
      if (x === null || y === null) return compare(x, y);
      return sign * compare(x, y);
    });
  }
  const facets = Object.fromEntries(FILTER_IDS.map((id) => [id, [...counts[id]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))])) as TablePage['facets'];
  const sources = SOURCES.flatMap((s): [RunSource, number][] => (perSource.has(s) ? [[s, perSource.get(s)!]] : []));
  const { items, page, pages } = pageOf(kept, q.page);
  return { rows: items, total: kept.length, page, pages, facets, sources };
}
