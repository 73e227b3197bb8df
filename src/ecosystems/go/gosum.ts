/**
 * go.sum: one line per module version, `<path> <version> h1:<hash>` for the module's files and
 * `<path> <version>/go.mod h1:<hash>` for its go.mod alone. `h1:` is the go command's dirhash: the base64 SHA-256 of
 * a list of each file's SHA-256 and name, not a hash of any one file (docs/sbom.md says how the SBOM carries it).
 */
export const GO_SUM = 'go.sum';

export interface ModuleSums {
  /** The `h1:` hash of the module's files, when go.sum has it (a module whose code no build needed has none). */
  module?: string;
  /** The `h1:` hash of its go.mod. */
  goMod?: string;
}

/** `path@version` → the module's sums; lines that are not go.sum lines are skipped. */
export function readGoSum(text: string): Map<string, ModuleSums> {
  const out = new Map<string, ModuleSums>();
  for (const line of text.split('\n')) {
    const m = /^(\S+) (\S+?)(\/go\.mod)? (h\d+:\S+)\s*$/.exec(line);
    if (!m) continue;
    const key = `${m[1]}@${m[2]}`;
    const sums = out.get(key) ?? {};
    if (m[3]) sums.goMod = m[4]!;
    else sums.module = m[4]!;
    out.set(key, sums);
  }
  return out;
}

/** go.sum without the lines of module versions outside `keep` (`path@version`); every other byte stays. */
export function pruneGoSum(text: string, keep: ReadonlySet<string>): string {
  return text
    .split(/(?<=\n)/)
    .filter((line) => {
      const m = /^(\S+) (\S+?)(?:\/go\.mod)? h\d+:/.exec(line);
      return !m || keep.has(`${m[1]}@${m[2]}`);
    })
    .join('');
}
