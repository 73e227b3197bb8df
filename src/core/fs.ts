import { readFile, stat } from 'node:fs/promises';

/** Whether a path exists and is a regular file (following symlinks). */
export async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isFile() ?? false;
}

/** Whether a path exists and is a directory (following symlinks). */
export async function isDirectory(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

/** A text file's content, or undefined when it cannot be read. */
export async function readIfExists(p: string): Promise<string | undefined> {
  return readFile(p, 'utf8').catch(() => undefined);
}
