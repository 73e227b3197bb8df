/**
 * Static imports of a CMake project: the build-time layer, i.e. the headers and static archives the compiler's
 * dependency files (`-MD`) say the project's own targets used, attributed to packages like the runtime layer. Each
 * package's location is the `#include` directive of the project's sources that names one of its headers, when one
 * does (a header reached only through another header has none).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { StaticImports } from '../outputs.js';
import type { AttributionResult, AuditContext } from '../types.js';
import { readProjectFile } from '../../core/safe-read.js';

const SOURCE = /\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|ipp|inl|tcc)$/i;
const INCLUDE = /^\s*#\s*include\s*[<"]([^>"]+)[>"]/;

async function sources(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'build') out.push(...(await sources(dir, child)));
    else if (e.isFile() && SOURCE.test(e.name)) out.push(child);
  }
  return out.sort();
}

/** `#include` directives of the project's sources: where, and the path as written. */
export async function includeDirectives(projectDir: string): Promise<{ site: string; header: string }[]> {
  const out: { site: string; header: string }[] = [];
  for (const file of await sources(projectDir)) {
    (await readProjectFile(projectDir, file, 'utf8')).split('\n').forEach((line, i) => {
      const m = INCLUDE.exec(line);
      if (m) out.push({ site: `${file}:${i + 1}`, header: m[1]! });
    });
  }
  return out;
}

export async function cmakeStaticImports(ctx: AuditContext, attribution: AttributionResult): Promise<StaticImports> {
  const projectHost = ctx.host.projectDir;
  const directives = await includeDirectives(projectHost);
  const imports: Record<string, string[]> = {};
  for (const dep of attribution.alternatives?.buildTime ?? []) {
    const sites = directives.filter((d) => (dep.files ?? []).some((f) => f.endsWith(`/${d.header}`))).map((d) => d.site);
    imports[dep.name] = [...new Set([...(imports[dep.name] ?? []), ...sites])];
  }
  return {
    imports,
    method: "the build-time layer: the compiler's dependency files of the project's targets, with the #include directives that name them",
    notTracedAdvice: 'used at build time (headers or static archives), which a runtime trace cannot see: keep it (the buildTime view of D3 shows it)',
    notes: [],
  };
}
