import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shared folder beside the checkout: the paper's data and the seed papers (docs/paper-data.md). */
export const SHARED = path.resolve(REPO_ROOT, '..', 'shared');
/** tsx by its file URL, so that the CLI runs from any working directory. */
const TSX = import.meta.resolve('tsx');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the envproof CLI from source, as a user would run the installed bin. */
export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): CliResult {
  const r = spawnSync(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/main.ts'), ...args], {
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
    const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/main.ts'), ...args], {
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
