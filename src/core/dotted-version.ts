/** Whether a dotted version (`20.20.2`, `17.0.13`, `1.26.8`) is `minimum` or newer; suffixes after the numbers are ignored. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (v: string) => (/^\d+(?:\.\d+)*/.exec(v)?.[0] ?? '').split('.').filter(Boolean).map(Number);
  const have = parts(version);
  const need = parts(minimum);
  if (have.length === 0) return false;
  for (let i = 0; i < need.length; i++) {
    const h = have[i] ?? 0;
    if (h !== need[i]!) return h > need[i]!;
  }
  return true;
}
