/**
 * D3 for C++, two layers:
 * - runtime (the paper's): shared libraries the program loaded, minus the C/C++ runtime and the loader;
 * - build-time (beyond the paper): headers compiled into the project's targets and files on their link
 *   lines, which is where header-only and static libraries show up.
 *
 * How a file gets its name, so that D1 (CMake names) and D3 meet:
 * 1. under a FetchContent directory (`_deps/<name>-src|-build`): the FetchContent name;
 * 2. a file CMake itself resolved for a find_package() (its library, its config file) or for a
 *    pkg_check_modules() module (its library), compared after resolving symlinks, or any file of the same
 *    Debian package: that CMake name (`libz.so.1` → `zlib`, `/usr/include/nlohmann/json.hpp` → `nlohmann-json`);
 * 3. otherwise a readable name from the file: the paper's library-name rule (`libssl.so.3` → `ssl`) or,
 *    for a header, its top directory or stem under `include/` (`/usr/include/openssl/ssl.h` → `openssl`).
 * `id` carries the owning Debian package when there is one; `version` its version (or the fetched tag).
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Dependency } from '../../core/types.js';
import type { AttributionResult, AuditContext, InstallResult, TracedDependency } from '../types.js';
import { readCodemodel } from './codemodel.js';
import { cmakeDetails, type CmakeInstallDetails } from './configure.js';
import { buildTimeFiles } from './depfiles.js';
import { debianOwners, usrMerged, type DebianPackage } from './dpkg.js';
import { cmakeName, isSharedLibrary, runtimeLibraryName } from './names.js';

/** The C/C++ runtime and the dynamic loader, which every program loads (the paper excludes them). */
const RUNTIME_BASE = /^(libc|libstdc\+\+|libm|libgcc_s|libpthread|libdl|librt)\.so(\.|$)|^ld-linux[^/]*\.so|^ld64\.so/;

/** Debian packages of the compiler and C library: their headers are not dependencies. */
const TOOLCHAIN_PACKAGE = /^(libc6(-dev)?|libc-dev-bin|linux-libc-dev|libstdc\+\+(6|-\d+-dev)|libgcc-s1|libgcc-\d+-dev|gcc(-\d+)?|g\+\+(-\d+)?|cpp(-\d+)?|libclang-.*|clang(-\d+)?|libc\+\+.*)$/;

const EVIDENCE_PER_NAME = 3;

interface Naming {
  /** FetchContent name per source/binary directory prefix (inside paths). */
  fetchedDirs: [string, string][];
  /** find_package name per file CMake resolved (inside paths, `/usr` form, symlinks resolved too). */
  byFile: Map<string, string>;
  /** find_package name per Debian package owning one of those files. */
  byDebian: Map<string, string>;
}

function hostView(ctx: AuditContext, inside: string): string {
  return ctx.sandbox.toHost(inside) ?? path.join(ctx.sandbox.rootOnHost, inside);
}

/** The path and, when it is a symlink, its target, both as seen inside and in `/usr` form. */
async function withTarget(ctx: AuditContext, inside: string): Promise<string[]> {
  const host = hostView(ctx, inside);
  const resolved = await realpath(host).catch(() => host);
  const insideResolved = ctx.sandbox.rootOnHost === '/' ? resolved : path.posix.join('/', path.relative(ctx.sandbox.rootOnHost, resolved));
  return [...new Set([usrMerged(inside), usrMerged(insideResolved)])];
}

async function namingFor(ctx: AuditContext, details: CmakeInstallDetails, owners: Map<string, DebianPackage>): Promise<Naming> {
  // Nested find_package calls come after the outer one; walking backwards lets the innermost claim its files.
  const claims = [
    ...[...details.findPackages].reverse().filter((r) => r.found).map((r) => ({ name: cmakeName(r.name), files: r.files })),
    ...details.pkgConfig,
  ];
  const byFile = new Map<string, string>();
  for (const claim of claims) {
    for (const file of claim.files.filter((f) => f.startsWith('/'))) {
      for (const p of await withTarget(ctx, file)) if (!byFile.has(p)) byFile.set(p, claim.name);
    }
  }
  const ownersOfFound = await debianOwners(ctx.sandbox, byFile.keys(), ctx.envDir);
  const byDebian = new Map<string, string>();
  for (const [file, name] of byFile) {
    const pkg = ownersOfFound.get(file) ?? owners.get(file);
    if (pkg && !TOOLCHAIN_PACKAGE.test(pkg.name) && !byDebian.has(pkg.name)) byDebian.set(pkg.name, name);
  }
  const fetchedDirs: [string, string][] = [];
  for (const [name, sourceDir] of Object.entries(details.fetched)) {
    fetchedDirs.push([sourceDir, name], [path.posix.join(details.buildDir, '_deps', `${name}-build`), name]);
  }
  return { fetchedDirs, byFile, byDebian };
}

function fetchedName(naming: Naming, file: string): string | undefined {
  const hit = naming.fetchedDirs.find(([dir]) => file === dir || file.startsWith(`${dir}/`));
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
  naming: Naming;
  /** D2 versions, for fetched content (its tag). */
  installedVersions: Map<string, string | undefined>;
}

async function attributeFiles(
  { ctx, details, owners, naming, installedVersions }: Attribution,
  files: string[],
  fallbackName: (file: string) => string | undefined,
): Promise<Layer> {
  const layer: Layer = { deps: new Map(), evidence: {}, files: [] };
  for (const file of files) {
    const fetched = fetchedName(naming, file);
    if (fetched) {
      addTo(layer, { name: fetched, version: installedVersions.get(fetched), id: `FetchContent:${fetched}`, source: file }, file);
      continue;
    }
    if (isOwnFile(ctx, details, file)) continue;
    const deb = owners.get(usrMerged(file));
    if (deb && TOOLCHAIN_PACKAGE.test(deb.name)) continue;
    const targets = await withTarget(ctx, file);
    const name = targets.map((t) => naming.byFile.get(t)).find(Boolean) ?? (deb && naming.byDebian.get(deb.name)) ?? fallbackName(file);
    if (!name) continue;
    addTo(layer, { name, version: deb?.version, id: deb?.name, source: file }, file);
  }
  return layer;
}

function mergeEvidence(into: Record<string, string[]>, from: Record<string, string[]>): void {
  for (const [name, files] of Object.entries(from)) {
    const list = (into[name] ??= []);
    for (const f of files) if (list.length < 2 * EVIDENCE_PER_NAME && !list.includes(f)) list.push(f);
  }
}

export async function cmakeAttribute(files: ReadonlySet<string>, ctx: AuditContext, install: InstallResult): Promise<AttributionResult> {
  const details = cmakeDetails(install);
  const loaded = [...new Set([...files].map(usrMerged))].filter((f) => {
    const base = path.posix.basename(f);
    return isSharedLibrary(base) && !RUNTIME_BASE.test(base);
  });
  const model = await readCodemodel(hostView(ctx, details.buildDir), details.buildDir);
  const compiled = [...new Set([...(await buildTimeFiles(hostView(ctx, details.buildDir), details.buildDir, model))].map(usrMerged))];
  const owners = await debianOwners(ctx.sandbox, [...loaded, ...compiled], ctx.envDir);
  const attribution: Attribution = {
    ctx,
    details,
    owners,
    naming: await namingFor(ctx, details, owners),
    installedVersions: new Map(install.installed.map((d) => [d.name, d.version])),
  };

  const runtime = await attributeFiles(attribution, loaded, (f) => runtimeLibraryName(path.posix.basename(f)));
  const buildTime = await attributeFiles(attribution, compiled, (f) =>
    /\.(a|so)(\.|$)/.test(path.posix.basename(f)) ? runtimeLibraryName(path.posix.basename(f)) : headerName(f),
  );

  const traced = sorted(runtime);
  const buildLayer = sorted(buildTime);
  const combined = new Map<string, TracedDependency>();
  for (const d of [...traced, ...buildLayer]) if (!combined.has(d.name)) combined.set(d.name, d);
  const evidence = { ...runtime.evidence };
  mergeEvidence(evidence, buildTime.evidence);
  return {
    traced,
    evidence,
    alternatives: {
      buildTime: buildLayer,
      combined: [...combined.values()].sort((a, b) => a.name.localeCompare(b.name)),
      // The paper's own D3 naming: every loaded library by its file name, without the CMake mapping.
      runtimeLibraryNames: [...new Set(runtime.files.map((f) => runtimeLibraryName(path.posix.basename(f))))].sort().map((name) => ({ name })),
    },
  };
}
