import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { uniqueDependencies } from '../../core/names.js';
import type { AttributionResult, AuditContext, InstallResult, TracedDependency } from '../types.js';
import { walk, type NpmInstallDetails } from './npm-tree.js';
import { readPackageJson } from './package-json.js';

const EVIDENCE_PER_PACKAGE = 3;
const BIN_ENTRY = /(^|\/)node_modules\/\.bin\//;

/** A package directory, relative to the project, and the name require() knows it by. */
interface PackageDir {
  dir: string;
  name: string;
}

/**
 * The innermost `node_modules/<name>` or `node_modules/@scope/<name>` directory that a project-relative
 * path lies strictly inside (the directory itself, a scope directory or `.bin`/`.package-lock.json`
 * are not files of a package).
 */
export function owningPackageDir(rel: string): PackageDir | undefined {
  const parts = rel.split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    const first = parts[i + 1]!;
    if (parts[i] !== 'node_modules' || first.startsWith('.')) continue;
    const end = i + 1 + (first.startsWith('@') ? 2 : 1);
    if (parts.length > end) return { dir: parts.slice(0, end).join('/'), name: parts.slice(i + 1, end).join('/') };
  }
  return undefined;
}

function isInside(rel: string, dir: string): boolean {
  return rel.startsWith(`${dir}/`);
}

/**
 * Maps the files a traced program opened to the npm packages that own them (D3). Paths outside the
 * project's node_modules — the project's own code, node, npm — belong to no dependency. Symlinks in
 * node_modules/.bin are followed to their package; `file:`/`link:` dependencies, which npm installs as
 * symlinks and node loads by their real path, are recognised by their target directory.
 */
export class Attributor {
  private readonly owners = new Map<string, PackageDir | undefined>();

  private readonly projectDir: string;

  constructor(
    projectDir: string,
    private readonly hostDir: string,
    private readonly links: readonly PackageDir[],
  ) {
    this.projectDir = path.posix.normalize(projectDir).replace(/\/+$/, '');
  }

  static async create(ctx: AuditContext, install: InstallResult<NpmInstallDetails>): Promise<Attributor> {
    const hostDir = ctx.host.projectDir;
    const { tree } = install.details;
    const links: PackageDir[] = [];
    for (const node of walk(tree)) {
      if (!node.path || !/^(file|link):/.test(node.resolved ?? '')) continue;
      const target = await realpath(path.join(hostDir, node.path)).catch(() => undefined);
      const rel = target && path.relative(hostDir, target);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) links.push({ dir: rel.split(path.sep).join('/'), name: node.name });
    }
    return new Attributor(ctx.projectDir, hostDir, links);
  }

  /** The package a project-relative path belongs to. Owners are cached per directory: traces hold many files per directory. */
  private ownerOf(rel: string): PackageDir | undefined {
    const parent = rel.slice(0, rel.lastIndexOf('/') + 1);
    if (!this.owners.has(parent)) {
      this.owners.set(parent, owningPackageDir(rel) ?? this.links.find((l) => isInside(rel, l.dir)));
    }
    return this.owners.get(parent);
  }

  private async followBin(rel: string): Promise<string | undefined> {
    const target = await realpath(path.join(this.hostDir, rel)).catch(() => undefined);
    return target && path.relative(this.hostDir, target).split(path.sep).join('/');
  }

  private identity(dir: string): Promise<{ version?: string; realName?: string }> {
    return readPackageJson(path.join(this.hostDir, dir, 'package.json'), this.hostDir).then(
      (pkg) => ({
        ...(typeof pkg.version === 'string' ? { version: pkg.version } : {}),
        ...(typeof pkg.name === 'string' ? { realName: pkg.name } : {}),
      }),
      () => ({}),
    );
  }

  async attribute(files: Iterable<string>): Promise<AttributionResult> {
    const byDir = new Map<string, { owner: PackageDir; files: string[] }>();
    for (const file of files) {
      if (!isInside(file, this.projectDir)) continue;
      let rel: string | undefined = file.slice(this.projectDir.length + 1);
      if (BIN_ENTRY.test(rel)) rel = await this.followBin(rel);
      const owner = rel === undefined ? undefined : this.ownerOf(rel);
      if (!owner) continue;
      let group = byDir.get(owner.dir);
      if (!group) byDir.set(owner.dir, (group = { owner, files: [] }));
      group.files.push(file);
    }
    const groups = [...byDir.values()];
    const identities = await Promise.all(groups.map((g) => this.identity(g.owner.dir)));
    const traced: TracedDependency[] = [];
    const evidence: Record<string, string[]> = {};
    for (const [i, { owner, files: owned }] of groups.entries()) {
      const { version, realName } = identities[i]!;
      const aliasOf = realName && realName !== owner.name ? realName : undefined;
      traced.push({
        name: owner.name,
        ...(version ? { version } : {}),
        ...(aliasOf ? { id: `npm:${aliasOf}@${version ?? ''}` } : {}),
        source: owner.dir,
        files: [...owned].sort(),
      });
      (evidence[owner.name] ??= []).push(...owned);
    }
    for (const name of Object.keys(evidence)) evidence[name] = evidence[name]!.sort().slice(0, EVIDENCE_PER_PACKAGE);
    return { traced: uniqueDependencies(traced), evidence };
  }
}

export async function attribute(files: ReadonlySet<string>, ctx: AuditContext, install: InstallResult<NpmInstallDetails>): Promise<AttributionResult> {
  return (await Attributor.create(ctx, install)).attribute(files);
}
