/**
 * D3 for C++, two layers:
 * - runtime (the paper's): shared libraries the program loaded, minus the C/C++ runtime and the loader;
 * - build-time (beyond the paper): headers compiled into the project's targets and files on their link
 *   lines, which is where header-only and static libraries show up.
 *
 * How a file gets its name, so that D1 (CMake names) and D3 meet:
 * 1. under a FetchContent directory (`_deps/<name>-src|-build`): the FetchContent name;
 * 2. a file CMake itself resolved for a find_package() (its library, its config file, an imported target's
 *    location or interface library) or for a pkg_check_modules() module (its library), compared after
 *    resolving symlinks: that CMake name (`libz.so.1` → `zlib`);
 * 3. a file under an include directory a package gave (not the compiler's default ones), or of a Debian package
 *    one of those files belongs to (`/usr/include/nlohmann/json.hpp` → `nlohmann-json`); when several names
 *    claim it, the ones the compiling target links (build time) or the ones the run already proved (run
 *    time) — Brotli's decode.h goes to brotlidec, encode.h to brotlienc, both from libbrotli-dev (claims.ts);
 * 4. otherwise a readable name from the file: the paper's library-name rule (`libssl.so.3` → `ssl`) or,
 *    for a header, its top directory or stem under `include/` (`/usr/include/openssl/ssl.h` → `openssl`).
 * `id` carries the owning Debian package when there is one; `version` is D2's version of the name (what CMake
 * reported), else the upstream part of Debian's, which stays in `systemVersion` (or the fetched tag).
 *
 * A shared library is the project's only when a process running one of the project's programs mapped it: one the
 * build made (in the project or build tree, fetched content included), or a dependency's (its Debian package is
 * one a found package claims). `--run "prog x && ls"` maps libselinux into /bin/ls, not into prog: such libraries
 * are returned apart (`systemTools`), never in D3.
 */
import path from 'node:path';
import type { Dependency } from '../../core/types.js';
import type { AttributionResult, AuditContext, InstallResult, TracedDependency } from '../types.js';
import { Claims, TOOLCHAIN_PACKAGE, withTarget } from './claims.js';
import { readCodemodel } from './codemodel.js';
import type { CmakeInstallDetails } from './configure.js';
import { buildTimeFiles, type BuildFile } from './depfiles.js';
import { debianOwners, debianUpstreamVersion, usrMerged, type DebianPackage } from './dpkg.js';
import { cmakeName, isRuntimeBase, isSharedLibrary, runtimeLibraryName } from './names.js';

const EVIDENCE_PER_NAME = 3;

/** FetchContent name per source/binary directory prefix (inside paths). */
function fetchedDirsOf(details: CmakeInstallDetails): [string, string][] {
  const dirs: [string, string][] = [];
  for (const [name, sourceDir] of Object.entries(details.fetched)) {
    dirs.push([sourceDir, name], [path.posix.join(details.buildDir, '_deps', `${name}-build`), name]);
  }
  return dirs;
}

function fetchedName(fetchedDirs: readonly [string, string][], file: string): string | undefined {
  const hit = fetchedDirs.find(([dir]) => file === dir || file.startsWith(`${dir}/`));
  if (hit) return cmakeName(hit[1]);
  const m = /\/_deps\/([^/]+)-(src|build|subbuild)\//.exec(file);
  return m?.[1] ? cmakeName(m[1]) : undefined;
}

/** A readable name for a header nobody claimed: its directory or stem under `include/`. */
function headerName(file: string): string | undefined {
  const m = /\/include\/(?:[a-z0-9_]+-linux-gnu[a-z0-9_]*\/)?([^/]+)/.exec(file);
  return m?.[1] ? cmakeName(m[1].replace(/\.(h|hh|hpp|hxx|h\+\+|inl|ipp|tcc)$/i, '')) : undefined;
}

interface Layer {
  deps: Map<string, TracedDependency>;
  evidence: Record<string, string[]>;
  /** Every file that was attributed to some dependency. */
  files: string[];
}

function addTo(layer: Layer, dep: Dependency, file: string): void {
  layer.files.push(file);
  const key = `${dep.name}@${dep.version ?? ''}`;
  const entry = layer.deps.get(key) ?? { ...dep, files: [] };
  if (!entry.files!.includes(file)) entry.files!.push(file);
  layer.deps.set(key, entry);
  const list = (layer.evidence[dep.name] ??= []);
  if (list.length < EVIDENCE_PER_NAME && !list.includes(file)) list.push(file);
}

function sorted(layer: Layer): TracedDependency[] {
  return [...layer.deps.values()].sort((a, b) => a.name.localeCompare(b.name) || (a.version ?? '').localeCompare(b.version ?? ''));
}

/** Files inside the project or its build tree that are not fetched content: the project's own. */
function isOwnFile(ctx: AuditContext, details: CmakeInstallDetails, file: string): boolean {
  return [ctx.projectDir, details.buildDir].some((dir) => file === dir || file.startsWith(`${dir}/`));
}

interface Attribution {
  ctx: AuditContext;
  details: CmakeInstallDetails;
  owners: Map<string, DebianPackage>;
  claims: Claims;
  fetchedDirs: [string, string][];
  /** D2 versions: the fetched tag, and the version CMake reported, which D3 entries of the same name repeat. */
  installedVersions: Map<string, string | undefined>;
}

/**
 * A dependency owned by a Debian package: the version in D2's format (CMake's, else Debian's upstream part), with
 * Debian's own version kept as `systemVersion` and the package as `id`.
 */
function debianDependency(a: Attribution, name: string, deb: DebianPackage | undefined, file: string): Dependency {
  const version = a.installedVersions.get(name) ?? (deb?.version ? debianUpstreamVersion(deb.version) : undefined);
  return { name, ...(version ? { version } : {}), ...(deb ? { id: deb.name } : {}), ...(deb?.version ? { systemVersion: deb.version } : {}), source: file };
}

/**
 * Attributes files to names. `preferred` gives, per file, the names that decide between several claimants of
 * one Debian package (given the names exact claims already proved).
 */
async function attributeFiles(
  a: Attribution,
  files: readonly BuildFile[] | readonly string[],
  fallbackName: (file: string) => string | undefined,
  preferred: (entry: BuildFile | string, proven: ReadonlySet<string>) => ReadonlySet<string>,
): Promise<Layer> {
  const layer: Layer = { deps: new Map(), evidence: {}, files: [] };
  const ambiguous: { entry: BuildFile | string; file: string; deb?: DebianPackage }[] = [];
  for (const entry of files) {
    const file = typeof entry === 'string' ? entry : entry.file;
    const fetched = fetchedName(a.fetchedDirs, file);
    if (fetched) {
      addTo(layer, { name: fetched, version: a.installedVersions.get(fetched), id: `FetchContent:${fetched}`, source: file }, file);
      continue;
    }
    if (isOwnFile(a.ctx, a.details, file)) continue;
    const deb = a.owners.get(usrMerged(file));
    if (deb && TOOLCHAIN_PACKAGE.test(deb.name)) continue;
    const exact = a.claims.exact(await withTarget(a.ctx, file));
    if (exact) addTo(layer, debianDependency(a, exact, deb, file), file);
    else ambiguous.push({ entry, file, ...(deb ? { deb } : {}) });
  }
  const proven = new Set([...layer.deps.values()].map((d) => d.name));
  for (const { entry, file, deb } of ambiguous) {
    const names = a.claims.candidates(file, deb, preferred(entry, proven));
    if (names.length === 0) {
      const name = fallbackName(file);
      if (name) addTo(layer, debianDependency(a, name, deb, file), file);
    }
    for (const name of names) addTo(layer, debianDependency(a, name, deb, file), file);
  }
  return layer;
}

function mergeEvidence(into: Record<string, string[]>, from: Record<string, string[]>): void {
  for (const [name, files] of Object.entries(from)) {
    const list = (into[name] ??= []);
    for (const f of files) if (list.length < 2 * EVIDENCE_PER_NAME && !list.includes(f)) list.push(f);
  }
}

function loadedLibraries(files: Iterable<string>): string[] {
  return [...new Set([...files].map(usrMerged))].filter((f) => {
    const base = path.posix.basename(f);
    return isSharedLibrary(base) && !isRuntimeBase(base);
  });
}

/** Whether a traced program is the project's (built by it, or a dependency's); '' is what ran before any exec. */
function isProjectProgram(a: Attribution, program: string): boolean {
  if (program === '' || isOwnFile(a.ctx, a.details, program) || fetchedName(a.fetchedDirs, program)) return true;
  const deb = a.owners.get(usrMerged(program));
  return deb !== undefined && a.claims.candidates(usrMerged(program), deb, new Set()).length > 0;
}

/**
 * The libraries the project's programs mapped, and apart, each library only other programs mapped with those
 * programs. Without per-program files (a tracer that gives none), every library is the project's.
 */
function splitByProgram(a: Attribution, loaded: readonly string[], byProgram: ReadonlyMap<string, ReadonlySet<string>> | undefined) {
  if (!byProgram) return { project: loaded, systemTools: new Map<string, string[]>() };
  const project = new Set<string>();
  const others = new Map<string, string[]>();
  for (const [program, files] of byProgram) {
    const mine = isProjectProgram(a, program);
    for (const f of loadedLibraries(files)) {
      if (mine) project.add(f);
      else others.set(f, [...(others.get(f) ?? []), program]);
    }
  }
  const systemTools = new Map([...others].filter(([f]) => !project.has(f)));
  return { project: loaded.filter((f) => project.has(f)), systemTools };
}

export async function cmakeAttribute(
  files: ReadonlySet<string>,
  ctx: AuditContext,
  install: InstallResult<CmakeInstallDetails>,
  byProgram?: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<AttributionResult> {
  const details = install.details;
  const everyLoaded = loadedLibraries(files);
  const programs = [...(byProgram?.keys() ?? [])].filter(Boolean).map(usrMerged);
  const model = await readCodemodel(ctx.hostPath(details.buildDir), details.buildDir);
  const compiled = (await buildTimeFiles(ctx.hostPath(details.buildDir), details.buildDir, model)).map((f) => ({ ...f, file: usrMerged(f.file) }));
  const owners = await debianOwners(ctx.sandbox, [...everyLoaded, ...programs, ...compiled.map((f) => f.file)], ctx.envDir);
  const claims = await Claims.create(ctx, details, owners);
  const attribution: Attribution = {
    ctx,
    details,
    owners,
    claims,
    fetchedDirs: fetchedDirsOf(details),
    installedVersions: new Map(install.installed.map((d) => [d.name, d.version])),
  };
  const { project: loaded, systemTools } = splitByProgram(attribution, everyLoaded, byProgram);

  // At run time, a library several names could own goes to those the run already proved; at build time, to
  // those the compiling (or linking) target links.
  const runtime = await attributeFiles(attribution, loaded, (f) => runtimeLibraryName(path.posix.basename(f)), (_, proven) => proven);
  const usage = new Map<string, ReadonlySet<string>>();
  const usedBy = (target: string) => usage.get(target) ?? usage.set(target, claims.usedBy(target)).get(target)!;
  const buildTime = await attributeFiles(
    attribution,
    compiled,
    (f) => (/\.(a|so)(\.|$)/.test(path.posix.basename(f)) ? runtimeLibraryName(path.posix.basename(f)) : headerName(f)),
    (entry) => (typeof entry === 'string' ? new Set() : usedBy(entry.target)),
  );
  const traced = sorted(runtime);
  const buildLayer = sorted(buildTime);
  const combined = new Map<string, TracedDependency>();
  for (const d of [...traced, ...buildLayer]) if (!combined.has(d.name)) combined.set(d.name, d);
  const evidence = { ...runtime.evidence };
  mergeEvidence(evidence, buildTime.evidence);
  // One entry per library name: a library is mapped through its soname link and found at its target too.
  const bySystemToolsByName = new Map<string, TracedDependency & { programs: string[] }>();
  for (const [file, by] of systemTools) {
    const name = runtimeLibraryName(path.posix.basename(file));
    const entry = bySystemToolsByName.get(name) ?? { ...debianDependency(attribution, name, owners.get(file), file), files: [], programs: [] };
    entry.files!.push(file);
    entry.programs = [...new Set([...entry.programs, ...by])].sort();
    bySystemToolsByName.set(name, entry);
  }
  const bySystemTools = [...bySystemToolsByName.values()];
  return {
    traced,
    evidence,
    ...(bySystemTools.length ? { loadedBySystemTools: bySystemTools.sort((x, y) => x.name.localeCompare(y.name)) } : {}),
    alternatives: {
      buildTime: buildLayer,
      combined: [...combined.values()].sort((a, b) => a.name.localeCompare(b.name)),
      // The paper's own D3 naming: every loaded library by its file name, without the CMake mapping.
      runtimeLibraryNames: [...new Set(runtime.files.map((f) => runtimeLibraryName(path.posix.basename(f))))].sort().map((name) => ({ name })),
    },
  };
}
