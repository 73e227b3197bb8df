/**
 * The audit's build cache (GOCACHE, in its environment directory) starts as a copy of a trusted build of the standard
 * library, so that no go command of an audit or of a repro run compiles the standard library again.
 *
 * The standard library is built once per configuration (what `go env` says of the toolchain, target and C
 * compiler) by envproof itself: `go build std` as the first command of a sandbox, before anything of the project has
 * run, in an empty directory of its own; then the vet facts of every standard package (vetFacts). envproof copies the result out of the work directory into
 * `$ENVPROOF_CACHE_DIR/go-std/<key>`, which no sandbox ever sees; each audit gets a copy of it in its own writable
 * GOCACHE. What a program writes there (a planted entry included) is gone with the audit, and every audit starts
 * from the same state: the standard library and nothing else (no test results, no project packages).
 * The key only picks the copy; the go command's own action IDs decide whether an entry applies.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from '../../core/cache.js';
import { copyDirectory } from '../../core/copy-tree.js';
import type { AuditContext } from '../types.js';
import { goDirs, goEnv } from './go-env.js';

/** What a seed holds, in its key: a seed made before the vet facts were added is not taken for one with them. */
const CONTENTS = 'std build, std vet facts';

/** What decides the compiled standard library, besides the go command's environment (goEnv). */
const CONFIGURATION = ['GOVERSION', 'GOROOT', 'GOOS', 'GOARCH', 'GOAMD64', 'GOEXPERIMENT', 'CGO_ENABLED', 'CC', 'CGO_CFLAGS', 'CGO_LDFLAGS'];

export function stdCacheRoot(): string {
  return path.join(cacheRoot(), 'go-std');
}

async function goIn(ctx: AuditContext, cwd: string, args: string[], env: Record<string, string>) {
  return ctx.sandbox.exec({ argv: ['go', ...args], cwd, env: { ...goEnv(ctx.envDir), ...env }, timeoutMs: ctx.installTimeoutMs, network: false });
}

/**
 * Fills the audit's GOCACHE with the trusted standard library, building it first if this configuration has none.
 * Must run before any of the project's code (the install's first step). A configuration whose build fails is left
 * to compile the standard library itself: the cache only saves time.
 */
export async function seedBuildCache(ctx: AuditContext): Promise<void> {
  const { cache } = goDirs(ctx.envDir);
  const warmup = path.posix.join(ctx.envDir, 'go-std-warmup');
  const hostWarmup = ctx.hostPath(warmup);
  await mkdir(hostWarmup, { recursive: true });
  try {
    const env = await goIn(ctx, warmup, ['env', ...CONFIGURATION], {});
    if (env.exitCode !== 0) return;
    const key = createHash('sha256').update(`${goEnv(ctx.envDir).GOFLAGS}\n${env.stdout}\n${CONTENTS}`).digest('hex').slice(0, 16);
    const shared = path.join(stdCacheRoot(), key);
    if (!existsSync(shared)) await buildStd(ctx, warmup, shared);
    if (existsSync(shared)) await copyDirectory(shared, ctx.hostPath(cache));
  } finally {
    await rm(hostWarmup, { recursive: true, force: true });
  }
}

/** `go build std` into a fresh cache, published whole under `shared` (renamed into place: readers never see half). */
async function buildStd(ctx: AuditContext, warmup: string, shared: string): Promise<void> {
  ctx.progress('go build std (once per toolchain: the standard library every audit starts from)');
  const built = path.posix.join(warmup, 'cache');
  const r = await goIn(ctx, warmup, ['build', 'std'], { GOCACHE: built });
  if (r.exitCode !== 0 || r.timedOut) return;
  await vetFacts(ctx, warmup, built);
  const tmp = `${shared}.${randomUUID().slice(0, 8)}`;
  await mkdir(path.dirname(shared), { recursive: true });
  await copyDirectory(ctx.hostPath(built), tmp);
  // Another envproof may have published the same configuration meanwhile: its copy is as good.
  await rename(tmp, shared).catch(() => rm(tmp, { recursive: true, force: true }));
}

/**
 * `go test` vets the package it tests (its default vet step), and for that computes the vet facts of every package
 * that package imports, the standard ones included: about a second and a half of CPU per run for a test that imports
 * `testing`, `os` and `strings`, in every audit and repro run, since each starts from this seed. They are cached beside
 * the compiled packages, so one `go test` of a package importing every importable standard package, run here into
 * the seed, leaves them all there. Without them the seed still serves: a failure here only costs that time.
 */
async function vetFacts(ctx: AuditContext, warmup: string, cache: string): Promise<void> {
  const listed = await goIn(ctx, warmup, ['list', '-e', '-f', '{{if and (not .Error) (or .GoFiles .CgoFiles)}}{{.ImportPath}}{{end}}', 'std'], { GOCACHE: cache });
  if (listed.exitCode !== 0) return;
  const importable = listed.stdout
    .split('\n')
    .map((p) => p.trim())
    .filter((p) => p && !p.split('/').includes('internal') && !p.startsWith('vendor/'));
  const dir = path.posix.join(warmup, 'vet-facts');
  await mkdir(ctx.hostPath(dir));
  await writeFile(path.join(ctx.hostPath(dir), 'go.mod'), 'module envproof.invalid/std-vet-facts\n\ngo 1.21\n');
  await writeFile(path.join(ctx.hostPath(dir), 'imports_test.go'), `package imports\n\nimport (\n${importable.map((p) => `\t_ ${JSON.stringify(p)}\n`).join('')})\n`);
  const r = await goIn(ctx, dir, ['test', '-count=1', '.'], { GOCACHE: cache });
  if (r.exitCode !== 0) ctx.progress(`go test of the standard library's vet facts failed (exit ${r.exitCode}); each go test computes them itself`);
}
