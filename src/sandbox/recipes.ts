import type { EcosystemId } from '../core/types.js';
import type { BaselineQuery, RecipeProvision } from '../ecosystems/facts.js';
import { ecosystem } from '../ecosystems/index.js';

/**
 * What a clean environment for one language contains: a minimal Debian plus the toolchain (the ecosystem's recipe), so that a program
 * assuming any other system library fails visibly (the paper's Docker images, as Debian package lists).
 * strace is in every environment because the tracer runs inside; its files are not the program's dependencies.
 */
export const DEBIAN_SUITE = 'bookworm';

const COMMON_PACKAGES = ['strace', 'ca-certificates'];

/** The Debian packages installed on top of a minimal base for `language`, sorted. */
export function debianPackages(language: EcosystemId): string[] {
  return [...ecosystem(language).recipe.debianPackages, ...COMMON_PACKAGES].sort();
}

/** What the environment gets beyond Debian packages (Go: its toolchain from the module proxy). */
export function recipeProvision(language: EcosystemId): RecipeProvision | undefined {
  return ecosystem(language).recipe.provision;
}

/** The recipe as the environment's marker records it: the Debian packages, then what is provisioned beyond them. */
export function recipeOf(language: EcosystemId): string[] {
  const extra = recipeProvision(language);
  return [...debianPackages(language), ...(extra ? [extra.id] : [])];
}

/** How the environment's own package managers list what is already there, recorded as part of the baseline. */
export function baselineQueries(language: EcosystemId): readonly BaselineQuery[] {
  return ecosystem(language).recipe.baseline;
}

/** `dpkg-query` output format used for the Debian part of the baseline: "name\tversion" per line. */
export const DPKG_QUERY_ARGV = ['dpkg-query', '-W', '-f', '${Package}\\t${Version}\\n'];

export function parseDpkgQuery(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const [name, version] = line.split('\t');
    if (name) out[name] = version ?? '';
  }
  return out;
}
