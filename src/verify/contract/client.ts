/**
 * The client side of a behavioural evaluation, run as its own process: inside the server's network namespace
 * (entered with nsenter) it reaches the server on loopback while the server itself has no outside network.
 * Input: one JSON argument `{ baseUrl, spec, collection?, timeoutMs }`; output: the runs as JSON on stdout.
 */
import { errorMessage } from '../../core/errors.js';
import { OpenApiContract } from './openapi.js';
import { loadCollection, runPostman, type PostmanRun } from './postman.js';
import { runContractSuite, type SuiteRun } from './run-suite.js';

export interface ClientRequest {
  baseUrl: string;
  spec: string;
  collection?: string;
  timeoutMs: number;
}

export interface ClientResult {
  contract: SuiteRun;
  postman?: PostmanRun;
}

/** Newman first, on the fresh database its assertion count was designed for; then envproof's own suite. */
export async function runClient(req: ClientRequest): Promise<ClientResult> {
  const contract = OpenApiContract.load(req.spec);
  const collection = req.collection ? loadCollection(req.collection) : undefined;
  const postman = collection === undefined ? undefined : await runPostman(collection, req.baseUrl, req.timeoutMs);
  return { contract: await runContractSuite(req.baseUrl, contract), ...(postman ? { postman } : {}) };
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
