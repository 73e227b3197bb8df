/**
 * The paper-compatible reading of EnvGap's per-run cells (docs/paper-data.md §2–§3): truth values, counts, and dependency
 * cells turned into normalised name sets (each ecosystem's normaliseName). Deliberately faithful, quirks included
 * (no space splitting, Java `group:artifact` keeps the group), so that the published numbers reproduce.
 */
import type { EcosystemId } from '../core/types.js';
import type { DependencyColumn } from '../ecosystems/facts.js';
import { ecosystem } from '../ecosystems/index.js';

export type { DependencyColumn };

const TRUE_WORDS = new Set(['true', '1', 'yes', 'success']);
const EMPTY_ITEMS = new Set(['none', 'n/a', '-']);

export function isTrue(cell: string | undefined): boolean {
  return TRUE_WORDS.has((cell ?? '').trim().toLowerCase());
}

/** A plain integer (surrounding whitespace allowed, as Python's int()); anything else is missing (null). */
export function parseCount(cell: string | undefined): number | null {
  const t = (cell ?? '').trim();
  if (!/^[+-]?\d+(?:_\d+)*$/.test(t)) return null;
  return Number.parseInt(t.replace(/_/g, ''), 10);
}

/** A dependency cell as a sorted, de-duplicated list of normalised names. */
export function dependencySet(cell: string | undefined, language: EcosystemId, column: DependencyColumn): string[] {
  const { normaliseName: normalise } = ecosystem(language);
  const names = new Set<string>();
  for (const raw of (cell ?? '').split(',')) {
    const item = raw.trim();
    if (item === '' || EMPTY_ITEMS.has(item.toLowerCase())) continue;
    const name = normalise(item, column);
    if (name !== '') names.add(name);
  }
  return [...names].sort();
}
