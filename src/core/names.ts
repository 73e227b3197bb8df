/** PEP 503 normalised name: lower case, runs of `-`, `_`, `.` become one `-`. */
export function pep503(name: string): string {
  return name.trim().replace(/[-_.]+/g, '-').toLowerCase();
}

/** A set of names from dependencies, for comparisons that ignore versions. */
export function nameSet(deps: readonly { name: string }[]): Set<string> {
  return new Set(deps.map((d) => d.name));
}

/** Sorted, de-duplicated by name@version. */
export function uniqueDependencies<T extends { name: string; version?: string }>(deps: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const d of deps) {
    const key = `${d.name}@${d.version ?? ''}`;
    if (!seen.has(key)) seen.set(key, d);
  }
  return [...seen.values()].sort((a, b) =>
    a.name === b.name ? (a.version ?? '').localeCompare(b.version ?? '') : a.name.localeCompare(b.name),
  );
}
