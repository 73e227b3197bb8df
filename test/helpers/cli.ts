import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shared folder beside the checkout: the paper's data and the seed papers (docs/paper-data.md). */
export const SHARED = path.resolve(REPO_ROOT, '..', 'shared');
/** tsx by its file URL, so that the CLI runs from any working directory. */
const TSX = import.meta.resolve('tsx');

/**
 * The command line that starts the envproof CLI with `args`. The suite's runner (test/runner/main.ts) builds dist/
 * before any test starts and sets ENVPROOF_TEST_CLI=dist: the tests then run the built program, as users do,
 * without compiling the sources again at every start (about a second of CPU each). A test file run by hand runs
 * the sources through tsx.
 */
export function cliCommand(...args: string[]): [string, ...string[]] {
  if (process.env.ENVPROOF_TEST_CLI === 'dist') return [process.execPath, path.join(REPO_ROOT, 'dist/cli/main.js'), ...args];
  return [process.execPath, '--import', TSX, path.join(REPO_ROOT, 'src/cli/main.ts'), ...args];
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the envproof CLI (`cliCommand`), as a user would run the installed bin. */
export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): CliResult {
  const [cmd, ...argv] = cliCommand(...args);
  const r = spawnSync(cmd, argv, {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like runCli, without blocking the event loop (for tests that serve something the CLI talks to). */
export function runCliAsync(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const [cmd, ...argv] = cliCommand(...args);
    const child = spawn(cmd, argv, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...process.env, ...opts.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** `envproof audit <dir> --json --sandbox host -q ...extra`, with its report parsed (a test fails if it printed none). */
export function auditJson(dir: string, ...extra: string[]): CliResult & { report: any } {
  const r = runCli(['audit', dir, '--json', '--sandbox', 'host', '-q', ...extra]);
  try {
    return { ...r, report: JSON.parse(r.stdout) };
  } catch {
    throw new Error(`audit ${dir} printed no JSON (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
}
