/**
 * One install shared by the runs that only change the run's environment. The first run of a kind of install (the
 * same install inputs: the live registry, or the dated index of one date) installs fresh in its own work directory;
 * before anything runs there, that installed tree is copied aside as the template. Each later run of the same kind
 * gets its own copy of the template, at the same path (installed trees hold absolute paths: a venv's scripts), so
 * that it sees exactly the tree the install left and nothing an earlier run wrote. The template itself is never
 * mounted in a sandbox.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyEntriesInto } from '../core/copy-tree.js';
import type { WorkDir } from '../audit/workspace.js';
import type { InstallResult } from '../ecosystems/types.js';

/** What a run reuses: the work directory's path, the install's result, what was learnt of the environment after it. */
export interface Template<Facts> {
  work: WorkDir;
  install: InstallResult;
  facts: Facts;
  /** The copy of the installed work directory, outside every sandbox. */
  copy: string;
}

/** A traced run's gate program (src/trace/gate.ts), placed in the work directory for one command: never part of an install. */
const isGate = (name: string) => name.startsWith('.envproof-gate-');

/** Copies the contents of `from` into the existing directory `to`, as they are (owners, modes, links). */
async function copyTree(from: string, to: string): Promise<void> {
  await copyEntriesInto((await readdir(from)).filter((name) => !isGate(name)).map((name) => path.join(from, name)), to);
}

/** Empties a directory, keeping the directory itself (so that its path stays held by this run). */
export async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}

export class InstallTemplates<Facts> {
  private readonly kept = new Map<string, Template<Facts>>();

  get(key: string): Template<Facts> | undefined {
    return this.kept.get(key);
  }

  /** Keeps the freshly installed `work` as the template of `key`; call before anything runs in it. */
  async keep(key: string, work: WorkDir, install: InstallResult, facts: Facts): Promise<void> {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'envproof-template-'));
    await copyTree(work.root, copy).catch(async (err: unknown) => {
      await rm(copy, { recursive: true, force: true });
      throw err;
    });
    this.kept.set(key, { work, install, facts, copy });
  }

  /** Gives the template's work directory a fresh copy of the installed tree (whatever an earlier run left there is removed). */
  async restore(t: Template<Facts>): Promise<void> {
    await emptyDir(t.work.root);
    await copyTree(t.copy, t.work.root);
  }

  /** Whether `work` is a template's work directory (a run ends by emptying it, not removing it). */
  holds(work: WorkDir): boolean {
    return [...this.kept.values()].some((t) => t.work.root === work.root);
  }

  async dispose(): Promise<void> {
    for (const t of this.kept.values()) {
      await rm(t.copy, { recursive: true, force: true });
      await rm(t.work.root, { recursive: true, force: true });
    }
    this.kept.clear();
  }
}
