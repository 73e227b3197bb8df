/**
 * Python D1 benchmark: extractPythonDeclared on a large pip-compile-style requirements.txt (pins,
 * `--hash` continuation lines, `# via` comments, markers) split over included files, and on a large
 * pyproject.toml. Reports the median of RUNS and physical lines per second.
 * Target: ≥ 100,000 requirements-file lines/s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { extractPythonDeclared } from '../src/ecosystems/python/declared.js';

const RUNS = 7;
const PACKAGES = 5_000;
const FILES = 10;
const TARGET_LINES_PER_S = 100_000;

function requirementBlock(i: number): string[] {
  const marker = i % 7 === 0 ? ' ; python_version < "3.12" and sys_platform == "linux"' : '';
  return [`package-${i}[extra-a,extra-b]==${i % 13}.${i % 7}.${i % 3}${marker} \\`, `    --hash=sha256:${'a'.repeat(64)} \\`, `    --hash=sha256:${'b'.repeat(64)}`, `    # via package-${i + 1}`];
}

async function median(run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[RUNS >> 1]!;
}

const dir = mkdtempSync(path.join(tmpdir(), 'envproof-bench-pymanifest-'));
try {
  let lines = 0;
  const perFile = PACKAGES / FILES;
  const top: string[] = ['--index-url https://pypi.org/simple'];
  for (let f = 0; f < FILES; f++) {
    const body = Array.from({ length: perFile }, (_, k) => requirementBlock(f * perFile + k)).flat();
    lines += body.length;
    writeFileSync(path.join(dir, `part-${f}.txt`), body.join('\n') + '\n');
    top.push(`-r part-${f}.txt`);
  }
  writeFileSync(path.join(dir, 'requirements.txt'), top.join('\n') + '\n');
  lines += top.length;

  let declared = 0;
  const ms = await median(async () => {
    declared = (await extractPythonDeclared(dir)).declared.length;
  });
  const rate = lines / (ms / 1000);
  console.log(`requirements.txt: ${lines} lines in ${FILES + 1} files, ${declared} declared: median ${ms.toFixed(1)} ms = ${Math.round(rate).toLocaleString('en')} lines/s (target ≥ ${TARGET_LINES_PER_S.toLocaleString('en')})`);

  const deps = Array.from({ length: PACKAGES }, (_, i) => `  "package-${i}[x]>=${i % 9}.0,<${(i % 9) + 1}; python_version >= '3.8'",`);
  const pyproject = ['[project]', 'name = "big"', 'version = "1"', 'dependencies = [', ...deps, ']'].join('\n');
  const pyprojectDir = mkdtempSync(path.join(dir, 'pyproject-'));
  writeFileSync(path.join(pyprojectDir, 'pyproject.toml'), pyproject);
  const pyMs = await median(async () => {
    declared = (await extractPythonDeclared(pyprojectDir)).declared.length;
  });
  console.log(`pyproject.toml: ${PACKAGES} dependencies, ${declared} declared: median ${pyMs.toFixed(1)} ms`);
  process.exitCode = rate >= TARGET_LINES_PER_S ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
