/**
 * The paper-compatible reading of EnvGap's per-run cells (RULES.md §2–§3): truth values, counts, and dependency
 * cells turned into normalised name sets. Deliberately faithful, quirks included (no space splitting, Java
 * `group:artifact` keeps the group), so that the published numbers reproduce.
 */
import type { EcosystemId } from '../core/types.js';
import { goFacts } from '../ecosystems/go/facts.js';

const TRUE_WORDS = new Set(['true', '1', 'yes', 'success']);
const EMPTY_ITEMS = new Set(['none', 'n/a', '-']);

export type DependencyColumn = 'declared' | 'installed' | 'traced';

export function isTrue(cell: string | undefined): boolean {
  return TRUE_WORDS.has((cell ?? '').trim().toLowerCase());
}

/** A plain integer (surrounding whitespace allowed, as Python's int()); anything else is missing (null). */
export function parseCount(cell: string | undefined): number | null {
  const t = (cell ?? '').trim();
  if (!/^[+-]?\d+(?:_\d+)*$/.test(t)) return null;
  return Number.parseInt(t.replace(/_/g, ''), 10);
}

function pythonItem(item: string): string {
  const cut = item.search(/[=<>!~[]/);
  return cut === -1 ? item : item.slice(0, cut);
}

function javaItem(item: string): string {
  const base = item.endsWith('.jar') ? item.slice(0, -4) : item;
  const colon = base.indexOf(':');
  if (colon !== -1) return base.slice(0, colon);
  return base.replace(/-\d[A-Za-z0-9_.-]*$/, '');
}

/** C++ runtime entries are shared-object names: `libz.so.1` → `z`. */
function cppRuntimeItem(item: string): string {
  const lower = item.toLowerCase();
  const so = lower.indexOf('.so');
  const stem = so === -1 ? lower : lower.slice(0, so);
  return stem.startsWith('lib') ? stem.slice(3) : stem;
}

function languageItem(item: string, language: EcosystemId, column: DependencyColumn): string {
  switch (language) {
    case 'python':
      return pythonItem(item);
    case 'java':
      return javaItem(item);
    case 'cpp':
      return column === 'traced' ? cppRuntimeItem(item) : item;
    case 'javascript':
      return item;
    case 'go':
      return goFacts.normaliseName(item);
  }
}

/** A dependency cell as a sorted, de-duplicated list of normalised names. */
export function dependencySet(cell: string | undefined, language: EcosystemId, column: DependencyColumn): string[] {
  const names = new Set<string>();
  for (const raw of (cell ?? '').split(',')) {
    const item = raw.trim();
    if (item === '' || EMPTY_ITEMS.has(item.toLowerCase())) continue;
    const name = languageItem(item, language, column).trim().toLowerCase().replace(/_/g, '-');
    if (name !== '') names.add(name);
  }
  return [...names].sort();
}
