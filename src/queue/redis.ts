/** Connections to the Redis server that holds the job queue (BullMQ). */
import { Redis } from 'ioredis';
import { EnvproofError, UsageError, errorMessage } from '../core/errors.js';
import { redactUrl } from '../store/postgres-db.js';

/** The BullMQ queue every envproof run job goes to. */
export const QUEUE_NAME = 'envproof-runs';

function checkUrl(url: string): void {
  if (!/^rediss?:\/\//i.test(url)) throw new UsageError(`--queue ${redactUrl(url)}: expected a Redis URL, redis://host:port`);
}

/**
 * Connects once, without retrying, so that a queue that is not there is a clear error at start rather than a
 * command that waits forever.
 */
export async function checkRedis(url: string): Promise<void> {
  checkUrl(url);
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5000, enableOfflineQueue: false });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    throw new EnvproofError(`cannot reach the Redis queue ${redactUrl(url)}: ${errorMessage(err)}`, 'Check that redis-server runs and the URL (redis://host:port) is right.');
  } finally {
    probe.disconnect();
  }
}

/**
 * A connection for BullMQ that outlives a lost server: commands wait (BullMQ's workers require
 * `maxRetriesPerRequest: null`) and the client reconnects, backing off up to 5 s.
 */
export function redisConnection(url: string): Redis {
  checkUrl(url);
  const redis = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 5000) });
  redis.on('error', () => {}); // reported by the queue's and worker's own error events
  return redis;
}
