import { spawn } from 'node:child_process';
import { isIP } from 'node:net';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { DEFAULT_STORE, ResultsStore, STORE_OPTION_HELP } from '../store/store.js';
import { startViewServer } from '../view/server.js';
import { StoreView } from '../view/store-view.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN } from './exit-codes.js';

interface ViewOptions {
  store: string;
  port: number;
  host: string;
  open?: boolean;
  json?: boolean;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, not "${value}"`);
  return n;
}

function host(value: string): string {
  if (value !== 'localhost' && isIP(value) === 0) throw new UsageError(`--host must be an IP address to listen on (127.0.0.1, 0.0.0.0, ::1), not "${value}"`);
  return value;
}

const isLoopback = (h: string) => h === 'localhost' || h === '::1' || h.startsWith('127.');

/** Opens the URL in the desktop's browser; where there is none, says so and goes on serving. */
function openBrowser(url: string): void {
  const child = spawn('xdg-open', [url], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write('envproof view: no browser could be opened (xdg-open is missing): open the URL yourself\n'));
  child.unref();
}

export function registerView(program: Command, setExitCode: SetExitCode): void {
  program
    .command('view')
    .description('Browse the results store in a web browser: runs, attempts with their project trees and diffs, layers, re-runs, backends, figures')
    .option('--store <path|url>', STORE_OPTION_HELP, DEFAULT_STORE)
    .option('--port <n>', 'port to listen on (0: any free port)', port, 0)
    .option('--host <address>', 'address to listen on; 0.0.0.0 makes the view reachable from other machines (still only with the token)', host, '127.0.0.1')
    .option('--open', 'open the URL in the desktop browser')
    .option('--json', 'print the address, port, token and URL as one JSON line instead of the text')
    .addHelpText(
      'after',
      '\nThe store is opened read-only; runs, attempts and re-runs that envproof run, repro or worker write meanwhile appear' +
        '\nwithout a reload. Every request needs the random token in the printed URL. Runs until SIGINT or SIGTERM.' +
        '\nExit codes: 0 stopped, 2 error (no such store, the port taken, a bad option).',
    )
    .action(async (o: ViewOptions) => {
      const store = await ResultsStore.open(o.store, { readonly: true });
      const view = new StoreView(store);
      let server;
      try {
        // Read once before the URL is given, so that the first page opens at once even on a large store.
        process.stderr.write(`envproof view: reading ${store.location}\n`);
        const { rows } = await view.snapshot();
        process.stderr.write(`envproof view: ${rows.length} runs\n`);
        server = await startViewServer(view, { host: o.host, port: o.port, onError: (m) => process.stderr.write(`envproof view: ${m}\n`) });
      } catch (err) {
        await store.close();
        throw err;
      }
      if (o.json) {
        process.stdout.write(`${JSON.stringify({ url: server.url, host: o.host, port: server.port, token: server.token, store: store.location })}\n`);
      } else {
        process.stdout.write(`envproof view of ${store.location}\n  ${server.url}\n`);
        if (!isLoopback(o.host)) process.stdout.write(`  listening on ${o.host}: reachable from other machines, by whoever has the token\n`);
        process.stdout.write('Stop with Ctrl-C.\n');
      }
      if (o.open) openBrowser(server.url);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      await store.close();
      setExitCode(EXIT_CLEAN);
    });
}
