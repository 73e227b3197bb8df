import { APT_INSTALL, paperName, type EcosystemFacts } from '../facts.js';

/** `pkg-config --list-all` prints "name  description"; versions come from a second query, not needed here. */
function parsePkgConfigList(stdout: string): Record<string, string> {
  const names = stdout
    .split('\n')
    .map((l) => l.split(/\s+/)[0] ?? '')
    .filter((n) => n !== '');
  return Object.fromEntries(names.map((n) => [n, '']));
}

/** C++ runtime entries of the paper's data are shared-object names: `libz.so.1` → `z`. */
function runtimeName(raw: string): string {
  const lower = raw.toLowerCase();
  const so = lower.indexOf('.so');
  const stem = so === -1 ? lower : lower.slice(0, so);
  return stem.startsWith('lib') ? stem.slice(3) : stem;
}

export const cppFacts: EcosystemFacts = {
  id: 'cpp',
  displayName: 'C++',
  projectKind: 'C++ (CMake)',
  manifestFiles: ['CMakeLists.txt'],
  prompt: { manifest: 'CMakeLists.txt', runtime: 'G++ 12 and CMake 3.22 or newer', envgapFolder: 'cpp_prompts', promise: [{ check: 'g++', atLeast: '12' }, { check: 'cmake', atLeast: '3.22' }] },
  recipe: {
    debianPackages: ['g++', 'cmake', 'make', 'git', 'zlib1g-dev', 'pkg-config'],
    baseline: [{ manager: 'pkg-config', argv: ['pkg-config', '--list-all'], parse: parsePkgConfigList }],
  },
  // CMake downloads (FetchContent) go to the build directory: no shared cache.
  caches: { dirs: [], env: () => ({}), publishers: [] },
  doctor: [
    { name: 'cmake', argv: ['cmake', '--version'], version: /cmake version (\S+)/, fix: `${APT_INSTALL} cmake` },
    { name: 'g++', argv: ['g++', '--version'], version: /(\d+\.\d+\.\d+)/, fix: `${APT_INSTALL} g++` },
  ],
  skipDirs: ['build'],
  readmeSetupCommand: /^(?:cmake\b|make\b)/,
  // gcc's messages: pip's native builds print them too, so they count whichever ecosystem ran the compiler.
  failurePatterns: [
    { pattern: /fatal error: [\w/.+-]+\.h(pp)?: No such file or directory/, class: 'missing-system-library' },
    { pattern: /cannot find -l\w+/, class: 'missing-system-library' },
    { pattern: /unrecognized command[- ]line option/, class: 'build-configuration' },
    { pattern: /invalid value ['‘][^'’]*['’] in ['‘]-std=/, class: 'build-configuration' },
    { pattern: /^\S+\.(?:c|cc|cpp|cxx|h|hh|hpp|hxx):\d+:\d+: (?:fatal )?error:/m, class: 'code-bug' },
  ],
  normaliseName: (raw, column) => paperName(column === 'traced' ? runtimeName(raw) : raw),
  paperInstalledIsDeclared: true,
};
