import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../src/store/store.js';
import type { AttemptRecord, StoredRun } from '../../src/store/types.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { freePort } from '../helpers/services.js';

export const FIXTURES = path.join(import.meta.dirname, 'fixtures');
export const SUITE = path.join(FIXTURES, 'suite.yaml');

export function tempStore(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-protocol-')), 'store.db');
}

export function runProtocolCli(store: string, ...args: string[]): CliResult {
  return runCli(['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', ...args]);
}

/** Every run of the store, whatever its status, with its attempts. */
export type StoreEntry = { run: StoredRun; attempts: AttemptRecord[] };

export async function readStore(spec: string): Promise<StoreEntry[]> {
  const store = await ResultsStore.open(spec);
  try {
    const entries = [];
    for (const run of await store.allRuns()) entries.push({ run, attempts: await store.attempts(run) });
    return entries;
  } finally {
    await store.close();
  }
}

/** A local port nothing listens on: connections to it are refused. */
export const closedPort = freePort;
