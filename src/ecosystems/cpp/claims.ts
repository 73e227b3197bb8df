/**
 * Which CMake name may claim a file, from what configure resolved for each found package and pkg-config module:
 * - its files (config file, libraries, imported locations, interface link libraries): an exact claim;
 * - its include directories (variables and imported targets' interface), when they are not the compiler's own
 *   default directories: a header under one belongs to it;
 * - the Debian packages owning those files: any other file of such a package may belong to it.
 * Several names can claim one Debian package (Brotli's decoder and encoder both come from libbrotli-dev); then
 * the names the compiling target links (build time), or the names already proven by an exact claim (run time),
 * decide, and when they cannot, every claimant is credited.
 */
import path from 'node:path';
import { InsideRealpath } from '../../trace/symlinks.js';
import type { AuditContext } from '../types.js';
import type { CmakeInstallDetails } from './configure.js';
import { debianOwners, usrMerged, type DebianPackage } from './dpkg.js';
import { cmakeName } from './names.js';
import type { TargetRecord } from './provider.js';

/** Debian packages of the compiler and C library: their files are not dependencies. */
export const TOOLCHAIN_PACKAGE = /^(libc6(-dev)?|libc-dev-bin|linux-libc-dev|libstdc\+\+(6|-\d+-dev)|libgcc-s1|libgcc-\d+-dev|gcc(-\d+)?|g\+\+(-\d+)?|cpp(-\d+)?|libclang-.*|clang(-\d+)?|libc\+\+.*)$/;

/** Directories the compiler searches anyway: an include directory there says nothing about who provides a header. */
const IMPLICIT_INCLUDE_DIR = /^\/usr(\/local)?\/include(\/[a-z0-9_]+-linux-gnu[a-z0-9_]*)?\/?$/;

interface Claim {
  name: string;
  files: string[];
  includeDirs: string[];
  targets: string[];
}

/**
 * The path and, when it is a symlink, its target, both as seen inside and in `/usr` form. Links are followed
 * in the sandbox's own file system (an absolute link in a root filesystem or image stays in it).
 */
export async function withTarget(ctx: AuditContext, inside: string): Promise<string[]> {
  const resolved = new InsideRealpath((p) => ctx.sandbox.toHost(p)).resolve(inside) ?? inside;
  return [...new Set([usrMerged(inside), usrMerged(resolved)])];
}

/** `libbrotlidec.so.1.0.9`, `libbrotlidec.a` → `brotlidec`: what `-lbrotlidec` names. */
function linkName(file: string): string | undefined {
  return /^lib(.+?)\.(so(\.[\d.]+)?|a)$/.exec(path.posix.basename(file))?.[1];
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

export class Claims {
  private constructor(
    private readonly byFile: Map<string, string>,
    private readonly byDebian: Map<string, Set<string>>,
    private readonly includeDirs: [string, string][],
    private readonly byImportedTarget: Map<string, string>,
    private readonly byLinkName: Map<string, string>,
    private readonly targets: Map<string, TargetRecord>,
  ) {}

  static async create(ctx: AuditContext, details: CmakeInstallDetails, owners: Map<string, DebianPackage>): Promise<Claims> {
    // Nested find_package calls come after the outer one; walking backwards lets the innermost claim its files.
    const claims: Claim[] = [
      ...[...details.findPackages].reverse().filter((r) => r.found).map((r) => ({ name: cmakeName(r.name), files: r.files, includeDirs: r.includeDirs, targets: r.targets })),
      ...details.pkgConfig.map((m) => ({ ...m, includeDirs: [], targets: [] })),
    ];
    const byFile = new Map<string, string>();
    const byLinkName = new Map<string, string>();
    const includeDirs: [string, string][] = [];
    const byImportedTarget = new Map<string, string>();
    for (const claim of claims) {
      for (const file of claim.files.filter((f) => f.startsWith('/'))) {
        for (const p of await withTarget(ctx, file)) if (!byFile.has(p)) byFile.set(p, claim.name);
        const lib = linkName(file);
        if (lib && !byLinkName.has(lib)) byLinkName.set(lib, claim.name);
      }
      for (const dir of claim.includeDirs.filter((d) => d.startsWith('/') && !d.includes('$<'))) {
        const norm = usrMerged(path.posix.normalize(dir)).replace(/\/$/, '');
        if (!IMPLICIT_INCLUDE_DIR.test(norm)) includeDirs.push([norm, claim.name]);
      }
      for (const t of claim.targets) if (!byImportedTarget.has(t)) byImportedTarget.set(t, claim.name);
    }
    const ownersOfClaimed = await debianOwners(ctx.sandbox, byFile.keys(), ctx.envDir);
    const byDebian = new Map<string, Set<string>>();
    for (const [file, name] of byFile) {
      const pkg = ownersOfClaimed.get(file) ?? owners.get(file);
      if (pkg && !TOOLCHAIN_PACKAGE.test(pkg.name)) addTo(byDebian, pkg.name, name);
    }
    return new Claims(byFile, byDebian, includeDirs, byImportedTarget, byLinkName, new Map(details.targets.map((t) => [t.name, t])));
  }

  /** The name that claims exactly this file (or its symlink target), if any. */
  exact(spellings: readonly string[]): string | undefined {
    return spellings.map((p) => this.byFile.get(p)).find(Boolean);
  }

  /**
   * The names that may have supplied a file no exact claim covers: those whose include directory holds it (the
   * deepest), else those claiming its Debian package; narrowed to `preferred` where that leaves any.
   */
  candidates(file: string, deb: DebianPackage | undefined, preferred: ReadonlySet<string>): string[] {
    const holding = this.includeDirs.filter(([dir]) => file.startsWith(`${dir}/`));
    const deepest = Math.max(0, ...holding.map(([dir]) => dir.length));
    const byInclude = [...new Set(holding.filter(([dir]) => dir.length === deepest).map(([, name]) => name))];
    const all = byInclude.length ? byInclude : [...(deb ? this.byDebian.get(deb.name) ?? [] : [])];
    if (all.length <= 1) return all;
    const narrowed = all.filter((n) => preferred.has(n));
    return (narrowed.length ? narrowed : all).sort();
  }

  /** The names a target of the build links, directly or through the project's own targets it links. */
  usedBy(target: string, seen: Set<string> = new Set()): Set<string> {
    const used = new Set<string>();
    const record = this.targets.get(target);
    if (!record || seen.has(target)) return used;
    seen.add(target);
    for (const raw of record.links) {
      const item = raw.replace(/^\$<LINK_ONLY:(.*)>$/, '$1');
      const name = item.startsWith('/')
        ? this.exact([usrMerged(item)])
        : this.byImportedTarget.get(item) ?? this.byLinkName.get(item.replace(/^-l/, ''));
      if (name) used.add(name);
      else if (this.targets.has(item)) for (const n of this.usedBy(item, seen)) used.add(n);
    }
    return used;
  }
}
