/** `envproof view` as a user starts it: the real command in its own process, its printed URL read back. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const TSX = import.meta.resolve('tsx');

export interface RunningView {
  url: string;
  base: string;
  token: string;
  child: ChildProcess;
  /** What the command wrote on stderr so far. */
  stderr(): string;
  /** Stops it with SIGTERM; resolves with its exit code. */
  stop(): Promise<number | null>;
}

export function startView(...args: string[]): Promise<RunningView> {
  const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/main.ts'), 'view', '--json', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!stdout.includes('\n')) return;
      const { url, token } = JSON.parse(stdout.split('\n')[0]!) as { url: string; token: string };
      resolve({
        url,
        token,
        base: new URL(url).origin,
        child,
        stderr: () => stderr,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`envproof view exited (${code}) before printing its URL: ${stderr}`)));
  });
}

/** The session cookie a request with the token sets, for requests made outside the browser. */
export async function sessionCookie(view: RunningView): Promise<string> {
  const r = await fetch(view.url, { redirect: 'manual' });
  return r.headers.get('set-cookie')!.split(';')[0]!;
}
