/**
 * A worker told to stop while its Redis is unreachable: BullMQ's close waits for the queue, for ever. The shutdown is
 * bounded by --shutdown-timeout: then the worker exits (2) and says what happens to its jobs. A real Redis, stopped.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startRedis } from '../helpers/services.js';
import { startWorker, until } from './workers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-shutdown-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('SIGTERM with Redis stopped: the worker exits after --shutdown-timeout and says its jobs go to the lock timeout', async () => {
  const redis = await startRedis();
  const worker = startWorker(redis.url, path.join(dir, 'store.db'), '--shutdown-timeout', '3');
  try {
    await until('the worker up', () => worker.log().includes('waiting for jobs') || worker.child.exitCode !== null);
    await redis.pause();
    await until('the worker to notice the lost queue', () => /queue: /.test(worker.log()), 30_000);
    const signalled = Date.now();
    worker.child.kill('SIGTERM');
    const code = await Promise.race([worker.exited, new Promise<string>((r) => setTimeout(() => r('still running'), 20_000))]);
    const seconds = (Date.now() - signalled) / 1000;
    assert.equal(code, 2, worker.log());
    assert.ok(seconds >= 3 && seconds < 15, `exited ${seconds} s after SIGTERM`);
    assert.match(worker.log(), /SIGTERM: finishing the current attempts, then stopping \(at most 3 s\)/);
    assert.match(worker.log(), /not stopped after 3 s \(is the queue reachable\?\): exiting now; no job was in progress/);
  } finally {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await redis.stop();
  }
});

test('SIGTERM with Redis up: the worker stops at once (exit 0), well before the shutdown timeout', async () => {
  const redis = await startRedis();
  const worker = startWorker(redis.url, path.join(dir, 'store2.db'), '--shutdown-timeout', '30');
  try {
    await until('the worker up', () => worker.log().includes('waiting for jobs') || worker.child.exitCode !== null);
    const signalled = Date.now();
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.log());
    assert.ok(Date.now() - signalled < 10_000);
    assert.doesNotMatch(worker.log(), /not stopped after/);
  } finally {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await redis.stop();
  }
});
