import path from 'node:path';
import { APT_INSTALL, paperName, type EcosystemFacts } from '../facts.js';
import { pythonCachePublisher } from './cache.js';

function parsePipJson(stdout: string): Record<string, string> {
  const rows = JSON.parse(stdout) as { name: string; version: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.version]));
}

export const pythonFacts: EcosystemFacts = {
  id: 'python',
  displayName: 'Python',
  projectKind: 'Python',
  manifestFiles: ['requirements.txt', 'pyproject.toml'],
  prompt: { manifest: 'requirements.txt', runtime: 'Python 3.10 or newer', envgapFolder: 'python_prompts', promise: [{ check: 'python3', atLeast: '3.10' }, { check: 'pip' }] },
  recipe: {
    debianPackages: ['python3', 'python3-pip', 'python3-venv'],
    baseline: [{ manager: 'pip', argv: ['python3', '-m', 'pip', 'list', '--format=json'], parse: parsePipJson }],
  },
  caches: {
    dirs: ['pip'],
    env: (root) => ({ PIP_CACHE_DIR: path.join(root, 'pip') }),
    publishers: [pythonCachePublisher],
  },
  doctor: [
    { name: 'python3', argv: ['python3', '--version'], version: /Python (\S+)/, fix: `${APT_INSTALL} python3` },
    { name: 'pip', argv: ['python3', '-m', 'pip', '--version'], version: /pip (\S+)/, fix: `${APT_INSTALL} python3-pip` },
    { name: 'python3 venv', argv: ['python3', '-c', 'import venv, ensurepip; print("venv ok")'], version: /(venv ok)/, fix: `${APT_INSTALL} python3-venv` },
  ],
  skipDirs: ['.venv', 'venv', '__pycache__'],
  readmeSetupCommand: /^(?:pip3?|python3? -m pip|python3? -m venv|virtualenv)/,
  failurePatterns: [
    { pattern: /ModuleNotFoundError: No module named/, class: 'missing-dependency' },
    { pattern: /ImportError: cannot import name|ImportError: No module named/, class: 'missing-dependency' },
  ],
  // The paper cuts a requirement at its first version or extras character; dots stay (no PEP 503 here).
  normaliseName(raw) {
    const cut = raw.search(/[=<>!~[]/);
    return paperName(cut === -1 ? raw : raw.slice(0, cut));
  },
};
