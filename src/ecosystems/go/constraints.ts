/**
 * The project's .go files the build left out for their build constraints (`//go:build tcell`, `_windows.go`), as the
 * go command itself decides them: `go list` in the audit's environment, with the build's (default) GOOS, GOARCH and
 * tags, lists them per package as IgnoredGoFiles. Each is shown with the constraint that excluded it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AuditContext } from '../types.js';
import { goExec } from './go-command.js';

export interface ExcludedFiles {
  /** Project-relative file → the constraint that excludes it (`tcell`, `windows`, `!linux && cgo`). */
  files: Map<string, string>;
  /** The build's context, for the advice: `linux/amd64, no -tags`. */
  context: string;
}

const GOOS = new Set(['aix', 'android', 'darwin', 'dragonfly', 'freebsd', 'hurd', 'illumos', 'ios', 'js', 'linux', 'nacl', 'netbsd', 'openbsd', 'plan9', 'solaris', 'wasip1', 'windows', 'zos']);
const GOARCH = new Set(['386', 'amd64', 'amd64p32', 'arm', 'arm64', 'arm64be', 'armbe', 'loong64', 'mips', 'mipsle', 'mips64', 'mips64le', 'mips64p32', 'mips64p32le', 'ppc', 'ppc64', 'ppc64le', 'riscv', 'riscv64', 's390', 's390x', 'sparc', 'sparc64', 'wasm']);

/** The constraint of a file: its `//go:build` line (or legacy `// +build` lines), and its GOOS/GOARCH name suffix. */
export function fileConstraint(name: string, source: string): string {
  const header = source.split(/^\s*package\s/m)[0] ?? '';
  const build = /^\/\/go:build\s+(.+?)\s*$/m.exec(header)?.[1];
  const legacy = [...header.matchAll(/^\/\/ \+build\s+(.+?)\s*$/gm)].map((m) => m[1]!);
  const parts = name.replace(/(_test)?\.go$/, '').split('_').slice(1);
  const suffix: string[] = [];
  const last = parts.at(-1);
  const before = parts.at(-2);
  if (last && GOARCH.has(last)) {
    if (before && GOOS.has(before)) suffix.push(before);
    suffix.push(last);
  } else if (last && GOOS.has(last)) suffix.push(last);
  const all = [...(build ? [build] : legacy), ...suffix];
  return all.length ? all.join(' && ') : 'a build constraint';
}

const TEMPLATE = '{{context.GOOS}}/{{context.GOARCH}}\t{{join context.BuildTags ","}}\t{{.Dir}}\t{{join .IgnoredGoFiles "\t"}}';

/** The files of the project's packages the build's constraints exclude; undefined when go list could not say. */
export async function excludedFiles(ctx: AuditContext): Promise<ExcludedFiles | undefined> {
  const r = await goExec(ctx, ['list', '-e', '-f', TEMPLATE, './...'], false);
  if (r.exitCode !== 0) return undefined;
  const files = new Map<string, string>();
  let context = '';
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const [platform, tags, dir, ...ignored] = line.split('\t');
    context = `${platform}, ${tags ? `-tags ${tags}` : 'no -tags'}`;
    const rel = path.posix.relative(ctx.projectDir, dir ?? '');
    if (rel.startsWith('..')) continue;
    for (const name of ignored.filter(Boolean)) {
      const file = rel ? `${rel}/${name}` : name;
      const source = await readFile(path.join(ctx.host.projectDir, file), 'utf8').catch(() => '');
      files.set(file, fileConstraint(name, source));
    }
  }
  return { files, context };
}
