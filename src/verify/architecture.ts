/**
 * The Clean Architecture verifier: the four layers as directories (at least three present) and no import
 * from a lower layer into a higher one. Imports come from the parsers and are resolved to project files the
 * way Python and Node resolve them, so a layer is decided by the file an import reaches, not by its text.
 */
import path from 'node:path';
import type { ImportFact, SourceFacts } from './facts-types.js';
import type { Evidence, VerifierResult, VerifyInput } from './types.js';

export const ARCHITECTURE_RULES = 'architecture/1';

export type LayerId = 'routes' | 'services' | 'repositories' | 'models';

/** Rank 3 may import rank 2 and below, never the reverse. Aliases are compared lower-cased without `-` and `_`. */
export const LAYERS: readonly { id: LayerId; rank: number; aliases: readonly string[] }[] = [
  { id: 'routes', rank: 3, aliases: ['routes', 'route', 'routers', 'router', 'handlers', 'handler', 'controllers', 'controller', 'views', 'endpoints', 'api', 'presentation', 'delivery', 'http', 'web'] },
  { id: 'services', rank: 2, aliases: ['services', 'service', 'usecases', 'usecase', 'application', 'interactors', 'interactor', 'business', 'logic'] },
  { id: 'repositories', rank: 1, aliases: ['repositories', 'repository', 'repos', 'repo', 'dal', 'dataaccess', 'persistence', 'daos', 'dao', 'stores', 'gateways'] },
  { id: 'models', rank: 0, aliases: ['models', 'model', 'entities', 'entity', 'domain', 'schemas', 'schema'] },
];

/** At least this many layers must be present as directories. */
export const MIN_LAYERS = 3;

const ALIAS = new Map(LAYERS.flatMap((l) => l.aliases.map((a) => [a, l.id] as const)));
const RANK = new Map(LAYERS.map((l) => [l.id, l.rank]));

const normalise = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

/** The layer of a file: the innermost directory of its path that is a layer alias. */
export function layerOfFile(rel: string): LayerId | undefined {
  const dirs = rel.split('/').slice(0, -1);
  for (let i = dirs.length - 1; i >= 0; i--) {
    const layer = ALIAS.get(normalise(dirs[i]!));
    if (layer) return layer;
  }
  return undefined;
}

/** The layer of a directory (as if it held a file). */
const layerOfDir = (dir: string) => layerOfFile(`${dir}/_`);

class Resolver {
  private readonly files: Set<string>;
  private readonly dirs = new Set<string>(['']);

  constructor(all: readonly string[]) {
    this.files = new Set(all);
    for (const f of all) {
      const parts = f.split('/');
      for (let i = 1; i < parts.length; i++) this.dirs.add(parts.slice(0, i).join('/'));
    }
  }

  private join(...parts: string[]): string {
    return path.posix.normalize(parts.filter(Boolean).join('/')).replace(/^\.\/?/, '').replace(/\/$/, '');
  }

  /** A Python module path (`a/b/c`) as a file or package in the project, or undefined. */
  private pythonModule(modulePath: string): string | undefined {
    for (const candidate of [`${modulePath}.py`, `${modulePath}/__init__.py`]) if (this.files.has(candidate)) return candidate;
    return modulePath && this.dirs.has(modulePath) ? `${modulePath}/` : undefined;
  }

  /** Python: every project file or package an import statement reaches (the module, and submodules named by `from`). */
  python(file: string, imp: ImportFact): string[] {
    const parts = imp.spec ? imp.spec.split('.') : [];
    let bases: string[];
    if (imp.level > 0) {
      let dir = path.posix.dirname(file);
      for (let i = 1; i < imp.level; i++) dir = path.posix.dirname(dir);
      bases = [dir === '.' ? '' : dir];
    } else {
      // sys.path of a server: the project root, src/, and the directories of the running scripts.
      const ancestors = path.posix.dirname(file).split('/').filter((d) => d !== '.');
      bases = ['', 'src', ...ancestors.map((_, i) => ancestors.slice(0, i + 1).join('/'))];
    }
    for (const base of bases) {
      const module = this.join(base, ...parts);
      const hit = parts.length === 0 ? (this.dirs.has(module) ? `${module}/` : undefined) : this.pythonModule(module);
      if (!hit) continue;
      const submodules = imp.names.map((n) => this.pythonModule(this.join(module, n))).filter((s): s is string => s !== undefined);
      return submodules.length > 0 ? submodules : [hit];
    }
    return [];
  }

  private jsPath(p: string): string | undefined {
    const exts = ['', '.js', '.ts', '.mjs', '.cjs', '.jsx', '.tsx', '.mts', '.cts'];
    for (const e of exts) if (this.files.has(`${p}${e}`)) return `${p}${e}`;
    // TypeScript sources import their compiled name: './x.js' for x.ts.
    const stem = p.replace(/\.[cm]?js$/, '');
    if (stem !== p) for (const e of ['.ts', '.tsx', '.mts', '.cts']) if (this.files.has(`${stem}${e}`)) return `${stem}${e}`;
    for (const e of exts.slice(1)) if (this.files.has(`${p}/index${e}`)) return `${p}/index${e}`;
    return this.dirs.has(p) && p !== '' ? `${p}/` : undefined;
  }

  /** JavaScript: the project file a specifier reaches (relative, `@/`/`~/` aliases, or a top-level project directory). */
  javascript(file: string, imp: ImportFact): string[] {
    const spec = imp.spec;
    let candidates: string[];
    if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') candidates = [this.join(path.posix.dirname(file), spec)];
    else if (spec.startsWith('@/') || spec.startsWith('~/')) candidates = [this.join('src', spec.slice(2)), this.join(spec.slice(2))];
    else if (spec.startsWith('/')) candidates = [this.join(spec.slice(1))];
    else if (this.dirs.has(spec.split('/')[0]!) && !spec.startsWith('@')) candidates = [this.join(spec)];
    else candidates = [];
    for (const c of candidates) {
      if (c.startsWith('..')) continue;
      const hit = this.jsPath(c);
      if (hit) return [hit];
    }
    return [];
  }
}

function targetLayer(target: string): LayerId | undefined {
  return target.endsWith('/') ? layerOfDir(target.slice(0, -1)) : layerOfFile(target);
}

export function verifyArchitecture(input: VerifyInput): VerifierResult {
  const resolver = new Resolver(input.files.all);
  const present = new Map<LayerId, string>();
  for (const s of input.sources) {
    const layer = layerOfFile(s.file);
    if (layer && !present.has(layer)) present.set(layer, path.posix.dirname(s.file));
  }
  const evidence: Evidence[] = [];
  const missing = LAYERS.filter((l) => !present.has(l.id)).map((l) => l.id);
  if (present.size < MIN_LAYERS) {
    const found = [...present].map(([id, dir]) => `${id} (${dir})`).join(', ') || 'none';
    evidence.push({ file: '.', line: 0, message: `only ${present.size} of the 4 layers are directories with source files: ${found}; missing ${missing.join(', ')} (at least ${MIN_LAYERS} needed)` });
  }
  for (const s of input.sources) evidence.push(...violations(s, resolver));
  const passed = evidence.length === 0;
  if (passed) {
    for (const [id, dir] of present) evidence.push({ file: dir, line: 0, message: `${id} layer` });
    if (missing.length) evidence.push({ file: '.', line: 0, message: `no ${missing.join(', ')} layer (${present.size} of 4 present is enough)` });
  }
  return { name: 'architecture', rules: ARCHITECTURE_RULES, passed, evidence };
}

function violations(s: SourceFacts, resolver: Resolver): Evidence[] {
  const from = layerOfFile(s.file);
  if (!from) return [];
  const out: Evidence[] = [];
  for (const imp of s.imports) {
    const targets = s.language === 'python' ? resolver.python(s.file, imp) : resolver.javascript(s.file, imp);
    for (const target of targets) {
      const to = targetLayer(target);
      if (!to || RANK.get(to)! <= RANK.get(from)!) continue;
      const written = s.language === 'python' ? `${'.'.repeat(imp.level)}${imp.spec}` : imp.spec;
      out.push({ file: s.file, line: imp.line, message: `${from} imports ${to}: "${written}" resolves to ${target.replace(/\/$/, '')} (a lower layer may not import a higher one)` });
    }
  }
  return out;
}
