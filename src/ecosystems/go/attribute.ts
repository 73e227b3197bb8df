/**
 * D3 for Go: the modules linked into the executables the traced run started, read from the build information the
 * linker embeds in each (`go version -m -json`), plus the shared libraries the run loaded (cgo), each owned by a
 * Debian package as C++ attributes them. A Go program is statically linked: the tracer sees the binary open and
 * run, never a file of a module, and the linker includes only the modules of packages the program reaches, which
 * is what the build information lists (docs/go.md).
 */
import path from 'node:path';
import { uniqueDependencies } from '../../core/names.js';
import { debianOwners, debianUpstreamVersion, usrMerged } from '../cpp/dpkg.js';
import { isRuntimeBase, isSharedLibrary, runtimeLibraryName } from '../cpp/names.js';
import type { AttributionResult, AuditContext, InstallResult, TracedDependency } from '../types.js';
import { goExec } from './go-command.js';
import { goDetails } from './install.js';
import { isModule, moduleDependency, type GoModule } from './modules.js';

interface BuildInfo {
  Main?: GoModule;
  Deps?: GoModule[];
}

/** The modules of one executable's build information; none when it has none (not a Go binary, or stripped of it). */
export async function linkedModules(ctx: AuditContext, binary: string): Promise<TracedDependency[]> {
  const r = await goExec(ctx, ['version', '-m', '-json', binary], false);
  if (r.exitCode !== 0) return [];
  let info: BuildInfo;
  try {
    info = JSON.parse(r.stdout) as BuildInfo;
  } catch {
    return [];
  }
  return (info.Deps ?? []).filter(isModule).map((m) => ({ ...moduleDependency(m, binary), files: [binary] }));
}

async function sharedLibraries(ctx: AuditContext, files: ReadonlySet<string>): Promise<TracedDependency[]> {
  const loaded = [...new Set([...files].map(usrMerged))].filter((f) => isSharedLibrary(path.posix.basename(f)) && !isRuntimeBase(path.posix.basename(f)));
  const owners = await debianOwners(ctx.sandbox, loaded, ctx.envDir);
  return loaded.map((file) => {
    const deb = owners.get(file);
    const version = deb?.version ? debianUpstreamVersion(deb.version) : undefined;
    return {
      name: runtimeLibraryName(path.posix.basename(file)),
      ...(version ? { version } : {}),
      ...(deb ? { id: deb.name, systemVersion: deb.version } : {}),
      source: file,
      files: [file],
    };
  });
}

export async function goAttribute(files: ReadonlySet<string>, ctx: AuditContext, install: InstallResult): Promise<AttributionResult> {
  const ran = goDetails(install).binaries.filter((b) => files.has(b));
  const modules = uniqueDependencies((await Promise.all(ran.map((b) => linkedModules(ctx, b)))).flat());
  const libraries = uniqueDependencies(await sharedLibraries(ctx, files));
  const evidence: Record<string, string[]> = {};
  for (const d of [...modules, ...libraries]) (evidence[d.name] ??= []).push(...(d.files ?? []).filter((f) => !evidence[d.name]!.includes(f)));
  return { traced: uniqueDependencies([...modules, ...libraries]), evidence, alternatives: { modules, sharedLibraries: libraries } };
}
