import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
const q = new Queue('envproof-runs', { connection: new Redis('redis://127.0.0.1:42747/1', { maxRetriesPerRequest: null }) });
console.log(await q.getJobState('run-3f8dd2c3b2ba9a27aaa2a2bf74f5306f'));
const j = await q.getJob('run-3f8dd2c3b2ba9a27aaa2a2bf74f5306f');
console.log(j?.returnvalue, j?.name);
await q.close();
