import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { evaluateBackend, type Evaluation } from '../../src/verify/evaluate.js';
import { verifyProject } from '../../src/verify/verify.js';
import type { Database, Orm } from '../../src/verify/types.js';
import { COLLECTION, expectedPostmanTotal, referenceServer, SPEC } from './helpers.js';

const ALL_HOLD = [['architecture', true, undefined], ['database', true, undefined], ['orm', true, true]];

export interface ReferenceServer {
  /** The fixture under fixtures/ (with its database variant). */
  name: string;
  language: 'python' | 'javascript';
  orm: Orm;
  port: number;
}

/** One reference server evaluated end to end in the bwrap sandbox: both suites, the verifiers, the trace. */
export function evaluateReference(server: ReferenceServer, database: Database): Promise<Evaluation> {
  return evaluateBackend({
    dir: referenceServer(server.name, database),
    language: server.language,
    constraints: { architecture: 'clean', database, orm: server.orm },
    sandbox: 'bwrap',
    port: server.port,
    spec: SPEC,
    collection: COLLECTION,
    startupTimeoutSec: 60,
    timeoutSec: 1800,
    progress: () => {},
  });
}

/**
 * It started, passed every assertion of envproof's suite (107) and of the collection (their number counted from the
 * collection's scripts, not by Newman), every verifier (the ORM's strict rule too), and loaded `traced` while serving.
 */
export function assertReferencePasses(e: Evaluation, traced: readonly string[]): void {
  const postmanTotal = expectedPostmanTotal(JSON.parse(readFileSync(COLLECTION, 'utf8')));
  assert.equal(e.startup.started, true, `${e.startup.started ? '' : e.startup.reason}\n${e.serverLog.slice(-3000)}`);
  assert.deepEqual(e.contract?.assertions.filter((a) => !a.passed), []);
  assert.equal(e.contract?.total, 107);
  assert.equal(e.postman?.total, postmanTotal);
  assert.equal(e.postman?.passed, postmanTotal, JSON.stringify(e.postman?.assertions.filter((a) => !a.passed).slice(0, 5)));
  assert.deepEqual(e.verifiers?.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), ALL_HOLD);
  assert.equal(e.passed, true);
  const loaded = e.environment!.layers.traced!.map((d) => d.name);
  for (const name of traced) assert.ok(loaded.includes(name), `${name} was loaded while serving: ${loaded.join(', ')}`);
}

/** A database variant the tests do not serve, verified statically: every verifier holds, the database on `evidence` (`file:line`). */
export async function assertVerifiersHold(server: ReferenceServer, database: Database, evidence: readonly string[]): Promise<void> {
  const report = await verifyProject(referenceServer(server.name, database), { architecture: 'clean', database, orm: server.orm });
  assert.deepEqual(report.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), ALL_HOLD);
  assert.deepEqual(report.verifiers.find((v) => v.name === 'database')!.evidence.map((x) => `${x.file}:${x.line}`).sort(), [...evidence].sort());
}
