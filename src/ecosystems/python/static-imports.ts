/**
 * Static imports of a Python project: every `import x`, `from x import y` (absolute), `importlib.import_module("x")`
 * and `__import__("x")` in the project's .py files, read with Python's own `ast` by the environment's interpreter
 * (nothing of the project is executed), and mapped to distributions with `importlib.metadata.packages_distributions()`
 * of the audit's venv. The project's own modules and the standard library are not dependencies.
 */
import { EnvproofError } from '../../core/errors.js';
import { pep503 } from '../../core/names.js';
import { tail } from '../../core/process.js';
import type { StaticImports } from '../outputs.js';
import type { AuditContext } from '../types.js';
import { venvPython } from './pip.js';

export const IMPORT_SCAN_SCRIPT = String.raw`
import ast, json, os, sys
from importlib import metadata
root = sys.argv[1]
skip = {"node_modules", "__pycache__", "venv", "site-packages", "build", "dist"}
files, own = [], set()
for d, dirs, names in os.walk(root):
    dirs[:] = sorted(x for x in dirs if x not in skip and not x.startswith("."))
    py = sorted(n for n in names if n.endswith(".py"))
    if py and d != root:
        own.add(os.path.basename(d))
    for n in py:
        own.add(n[:-3])
        files.append(os.path.join(d, n))
imports, errors = {}, []
def add(module, where):
    top = module.split(".")[0]
    if top and top not in own and top not in sys.stdlib_module_names:
        imports.setdefault(top, []).append(where)
for f in files:
    rel = os.path.relpath(f, root)
    try:
        with open(f, "rb") as fh:
            tree = ast.parse(fh.read(), rel)
    except (SyntaxError, ValueError):
        errors.append(rel)
        continue
    for node in ast.walk(tree):
        where = "%s:%d" % (rel, getattr(node, "lineno", 0))
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, where)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            add(node.module, where)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else None
            if name in ("import_module", "__import__"):
                add(node.args[0].value, where)
owners = metadata.packages_distributions()
found = {}
for module, sites in imports.items():
    for dist in owners.get(module, []):
        found.setdefault(dist, []).extend(sites)
print(json.dumps({"imports": found, "unresolved": sorted(m for m in imports if m not in owners), "errors": errors}))
`;

interface ScanOutput {
  imports: Record<string, string[]>;
  unresolved: string[];
  errors: string[];
}

/** The scan's JSON as StaticImports, distribution names PEP 503-normalised. */
export function staticImportsFromScan(stdout: string): StaticImports {
  const scan = JSON.parse(stdout) as ScanOutput;
  const imports: Record<string, string[]> = {};
  for (const [dist, sites] of Object.entries(scan.imports)) imports[pep503(dist)] = [...new Set([...(imports[pep503(dist)] ?? []), ...sites])].sort();
  const notes: string[] = [];
  if (scan.errors.length) notes.push(`files Python could not parse (their imports are not known): ${scan.errors.join(', ')}`);
  if (scan.unresolved.length) notes.push(`imported modules no installed distribution provides: ${scan.unresolved.join(', ')}`);
  return { imports, method: "Python's ast, run by the environment's interpreter; modules mapped by importlib.metadata", notes };
}

export async function pythonStaticImports(ctx: AuditContext): Promise<StaticImports> {
  const r = await ctx.sandbox.exec({ argv: [venvPython(ctx), '-I', '-c', IMPORT_SCAN_SCRIPT, ctx.projectDir], cwd: ctx.envDir, timeoutMs: 120_000, network: false });
  if (r.exitCode !== 0) throw new EnvproofError(`Python's ast could not read the project's imports: ${tail(r.stderr || r.stdout || r.spawnError || '', 5)}`);
  return staticImportsFromScan(r.stdout);
}
