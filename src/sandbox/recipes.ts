import type { EcosystemId } from '../core/types.js';
import { goFacts } from '../ecosystems/go/facts.js';

/**
 * What a clean environment for one language contains: a minimal Debian plus the toolchain, so that a program
 * assuming any other system library fails visibly (the paper's Docker images, as Debian package lists).
 * strace is in every environment because the tracer runs inside; its files are not the program's dependencies.
 */
export const DEBIAN_SUITE = 'bookworm';

const COMMON_PACKAGES = ['strace', 'ca-certificates'];

const TOOLCHAIN_PACKAGES: Record<EcosystemId, readonly string[]> = {
  python: ['python3', 'python3-pip', 'python3-venv'],
  java: ['openjdk-17-jdk-headless', 'maven'],
  javascript: ['nodejs', 'npm'],
  cpp: ['g++', 'cmake', 'make', 'git', 'zlib1g-dev', 'pkg-config'],
  go: goFacts.recipe.debianPackages,
};

/** The Debian packages installed on top of a minimal base for `language`, sorted. */
export function debianPackages(language: EcosystemId): string[] {
  return [...TOOLCHAIN_PACKAGES[language], ...COMMON_PACKAGES].sort();
}

/** What the environment gets beyond Debian packages (Go: its toolchain from the module proxy), installed on the host into the tree. */
export function recipeProvision(language: EcosystemId): { id: string; install(rootDir: string, progress: (message: string) => void): Promise<void> } | undefined {
  return language === goFacts.id ? goFacts.recipe.provision : undefined;
}

/** The recipe as the environment's marker records it: the Debian packages, then what is provisioned beyond them. */
export function recipeOf(language: EcosystemId): string[] {
  const extra = recipeProvision(language);
  return [...debianPackages(language), ...(extra ? [extra.id] : [])];
}

/**
 * How the environment's own package manager lists what is already there, recorded as part of the baseline.
 * `parse` turns the command's stdout into name → version.
 */
export interface BaselineQuery {
  manager: string;
  argv: string[];
  parse(stdout: string): Record<string, string>;
}

function parsePipJson(stdout: string): Record<string, string> {
  const rows = JSON.parse(stdout) as { name: string; version: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.version]));
}

function parseNpmGlobal(stdout: string): Record<string, string> {
  const tree = JSON.parse(stdout || '{}') as { dependencies?: Record<string, { version?: string }> };
  return Object.fromEntries(Object.entries(tree.dependencies ?? {}).map(([n, d]) => [n, d.version ?? '']));
}

/** `pkg-config --list-all` prints "name  description"; versions come from a second query, not needed here. */
function parsePkgConfigList(stdout: string): Record<string, string> {
  const names = stdout
    .split('\n')
    .map((l) => l.split(/\s+/)[0] ?? '')
    .filter((n) => n !== '');
  return Object.fromEntries(names.map((n) => [n, '']));
}

const BASELINE_QUERIES: Record<EcosystemId, readonly BaselineQuery[]> = {
  python: [{ manager: 'pip', argv: ['python3', '-m', 'pip', 'list', '--format=json'], parse: parsePipJson }],
  javascript: [{ manager: 'npm', argv: ['npm', 'ls', '--global', '--depth=0', '--json'], parse: parseNpmGlobal }],
  // A fresh environment's Maven local repository is empty: there is nothing for Maven to list.
  java: [],
  cpp: [{ manager: 'pkg-config', argv: ['pkg-config', '--list-all'], parse: parsePkgConfigList }],
  go: goFacts.recipe.baseline,
};

export function baselineQueries(language: EcosystemId): readonly BaselineQuery[] {
  return BASELINE_QUERIES[language];
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
