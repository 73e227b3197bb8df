/**
 * The client side of a behavioural evaluation, run as its own process: inside the server's network namespace
 * (entered with nsenter) it reaches the server on loopback while the server itself has no outside network.
 * Input: one JSON argument (ClientRequest); output: the result as JSON on stdout. It polls the health check
 * first and says `STARTED_LINE <ms>` on stderr once the server answers, so the parent knows the server is up.
 */
import { errorMessage } from '../../core/errors.js';
import { OpenApiContract } from './openapi.js';
import { loadCollection, runPostman } from './postman.js';
import { runContractSuite } from './run-suite.js';
import { STARTED_LINE, type ClientRequest, type ClientResult, type StartupOutcome } from './client-types.js';

const POLL_MS = 250;

/** Polls the health check until it answers 200 or the time is up. */
export async function waitForHealth(url: string, timeoutMs: number): Promise<StartupOutcome> {
  const started = Date.now();
  let last = 'no answer';
  while (Date.now() - started < timeoutMs) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return { started: true, afterMs: Date.now() - started };
      last = `the health check answered ${res.status}`;
    } catch (err) {
      last = `no answer (${(err as { cause?: { code?: string } }).cause?.code ?? errorMessage(err)})`;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return { started: false, reason: `${url} did not answer 200 within ${Math.round(timeoutMs / 1000)} s: ${last}` };
}

/**
 * envproof's own suite first, so that its score does not depend on what a collection left in the database; its
 * names are unique per run and it deletes the articles it created, so the collection then finds the empty
 * lists its assertion count was designed for.
 */
export async function runClient(req: ClientRequest): Promise<ClientResult> {
  const contract = OpenApiContract.load(req.spec);
  const collection = req.collection ? loadCollection(req.collection) : undefined;
  const startup = await waitForHealth(req.healthUrl, req.startupTimeoutMs);
  if (!startup.started) return { startup };
  process.stderr.write(`${STARTED_LINE} ${startup.afterMs}\n`);
  const own = await runContractSuite(req.baseUrl, contract);
  const postman = collection === undefined ? undefined : await runPostman(collection, req.baseUrl, req.timeoutMs);
  return { startup, contract: own, ...(postman ? { postman } : {}) };
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!);
if (isMain) {
  runClient(JSON.parse(process.argv[2] ?? '{}') as ClientRequest).then(
    (result) => process.stdout.write(JSON.stringify(result)),
    (err: unknown) => {
      process.stderr.write(`${errorMessage(err)}\n`);
      process.exitCode = 2;
    },
  );
}
