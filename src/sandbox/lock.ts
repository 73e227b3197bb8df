import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock directory whose owner has not written its pid for this long was abandoned mid-creation. */
const OWNERLESS_GRACE_MS = 5000;

/**
 * Runs `fn` while holding a lock directory (atomic mkdir) that names its owner's pid. A lock whose owner is
 * gone (an interrupted build) is taken over; a live owner is waited for.
 */
export async function withDirLock<T>(lockDir: string, onWait: (ownerPid: number) => void, fn: () => Promise<T>): Promise<T> {
  const ownerFile = path.join(lockDir, 'pid');
  let announced = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      await writeFile(ownerFile, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number((await readFile(ownerFile, 'utf8').catch(() => '')).trim());
    if (owner > 0 && isAlive(owner)) {
      if (!announced) onWait(owner);
      announced = true;
      await sleep(1000);
      continue;
    }
    const age = Date.now() - ((await stat(lockDir).catch(() => null))?.mtimeMs ?? 0);
    if (owner > 0 || age > OWNERLESS_GRACE_MS) await rm(lockDir, { recursive: true, force: true });
    else await sleep(500);
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}
