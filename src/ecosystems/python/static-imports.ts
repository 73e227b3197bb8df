/**
 * Static imports of a Python project: every `import x`, `from x import y` (absolute), `importlib.import_module("x")`
 * and `__import__("x")` in the project's .py files, read with Python's own `ast` by the environment's interpreter
 * (nothing of the project is executed), and mapped to distributions with `importlib.metadata.packages_distributions()`
 * of the audit's venv. The project's own modules and the standard library are not dependencies. Modules no
 * distribution provides are missing unless the import is optional (try/except ImportError, TYPE_CHECKING). Also read:
 * what is loaded by discovery, not import (modules run with `python -m` or runpy, entry-point plug-ins).
 */
import { EnvproofError } from '../../core/errors.js';
import { pep503 } from '../../core/names.js';
import { tail } from '../../core/process.js';
import type { Discovery, StaticImports } from '../outputs.js';
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
imports, guarded, run_as_main, strings, errors = {}, {}, {}, set(), []
def add(into, module, where):
    top = module.split(".")[0]
    if top and top not in own and top not in sys.stdlib_module_names:
        into.setdefault(top, []).append(where)
def catches_import_error(handler):
    names = [handler.type] if not isinstance(handler.type, ast.Tuple) else handler.type.elts
    return handler.type is None or any(getattr(n, "id", getattr(n, "attr", None)) in ("ImportError", "ModuleNotFoundError", "Exception", "BaseException") for n in names)
def optional_nodes(tree):
    # Imports under try/except ImportError or if TYPE_CHECKING: the code runs without them.
    out = set()
    for node in ast.walk(tree):
        body = []
        if isinstance(node, ast.Try) and any(catches_import_error(h) for h in node.handlers):
            body = node.body
        elif isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            body = node.body
        for stmt in body:
            out.update(id(n) for n in ast.walk(stmt))
    return out
for f in files:
    rel = os.path.relpath(f, root)
    try:
        with open(f, "rb") as fh:
            tree = ast.parse(fh.read(), rel)
    except (SyntaxError, ValueError):
        errors.append(rel)
        continue
    optional = optional_nodes(tree)
    for node in ast.walk(tree):
        where = "%s:%d" % (rel, getattr(node, "lineno", 0))
        into = guarded if id(node) in optional else imports
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(into, alias.name, where)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            add(into, node.module, where)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
            strings.add(node.value)
        elif isinstance(node, (ast.List, ast.Tuple)):
            # [sys.executable, "-m", "x", ...]: a module run as a program.
            values = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            for i, v in enumerate(values[:-1]):
                if v == "-m" and isinstance(values[i + 1], str):
                    add(run_as_main, values[i + 1], where)
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else None
            if name in ("import_module", "__import__"):
                add(into, node.args[0].value, where)
            elif name == "run_module":
                add(run_as_main, node.args[0].value, where)
owners = metadata.packages_distributions()
for module, sites in guarded.items():
    if module in owners:
        imports.setdefault(module, []).extend(sites)
def by_distribution(found_imports):
    found = {}
    for module, sites in found_imports.items():
        for dist in owners.get(module, []):
            found.setdefault(dist, []).extend(sites)
    return found
# Entry-point plug-ins: a distribution registering into a group (other than scripts) that the project's code or
# another installed distribution names, the way a plug-in host loads its group.
plugins, hosts = {}, {}
for dist in metadata.distributions():
    for ep in dist.entry_points:
        if ep.group not in ("console_scripts", "gui_scripts"):
            plugins.setdefault(dist.metadata["Name"], []).append(ep)
groups = {ep.group for eps in plugins.values() for ep in eps}
for group in groups & strings:
    hosts[group] = "the project's code"
if groups - strings:
    for dist in metadata.distributions():
        for path in dist.files or []:
            if str(path).endswith(".py") and groups - set(hosts):
                try:
                    with open(path.locate(), encoding="utf-8", errors="replace") as fh:
                        text = fh.read()
                except OSError:
                    continue
                for group in groups - set(hosts):
                    if ('"%s"' % group) in text or ("'%s'" % group) in text:
                        hosts[group] = dist.metadata["Name"]
entry_points = {}
for name, eps in plugins.items():
    for ep in eps:
        if ep.group in hosts and hosts[ep.group] != name:
            entry_points[name] = "entry_points.txt registers %s = %s in group %s, which %s loads" % (ep.name, ep.value, ep.group, hosts[ep.group])
            break
print(json.dumps({
    "imports": by_distribution(imports),
    "unresolved": {m: s for m, s in imports.items() if m not in owners},
    "optional": sorted(m for m in guarded if m not in owners and m not in imports),
    "runAsMain": by_distribution(run_as_main),
    "entryPoints": entry_points,
    "errors": errors,
}))
`;

interface ScanOutput {
  imports: Record<string, string[]>;
  unresolved: Record<string, string[]>;
  optional: string[];
  runAsMain: Record<string, string[]>;
  entryPoints: Record<string, string>;
  errors: string[];
}

/** Distribution names PEP 503-normalised, their sites merged and sorted. */
function byNormalName(found: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [dist, sites] of Object.entries(found)) out[pep503(dist)] = [...new Set([...(out[pep503(dist)] ?? []), ...sites])].sort();
  return out;
}

/** Packages loaded by discovery: modules run with `python -m`/runpy, and entry-point plug-ins of a loaded group. */
function discoveredPackages(scan: ScanOutput): Record<string, Discovery> {
  const out: Record<string, Discovery> = {};
  for (const [dist, evidence] of Object.entries(scan.entryPoints)) out[pep503(dist)] = { rule: 'python-entry-point', evidence };
  for (const [dist, sites] of Object.entries(byNormalName(scan.runAsMain))) out[dist] = { rule: 'python-run-module', evidence: `run as a program (python -m, runpy) at ${sites.slice(0, 3).join(', ')}` };
  return out;
}

/** The scan's JSON as StaticImports, distribution names PEP 503-normalised. */
export function staticImportsFromScan(stdout: string): StaticImports {
  const scan = JSON.parse(stdout) as ScanOutput;
  const notes: string[] = [];
  if (scan.errors.length) notes.push(`files Python could not parse (their imports are not known): ${scan.errors.join(', ')}`);
  if (scan.optional.length) notes.push(`optional imports (under try/except ImportError or TYPE_CHECKING) no installed distribution provides: ${scan.optional.join(', ')}`);
  const unresolved = Object.fromEntries(Object.entries(scan.unresolved).map(([m, sites]) => [m, [...new Set(sites)].sort()]));
  return {
    imports: byNormalName(scan.imports),
    unresolved,
    discovered: discoveredPackages(scan),
    method: "Python's ast, run by the environment's interpreter; modules mapped by importlib.metadata",
    notes,
  };
}

export async function pythonStaticImports(ctx: AuditContext): Promise<StaticImports> {
  const r = await ctx.sandbox.exec({ argv: [venvPython(ctx), '-I', '-c', IMPORT_SCAN_SCRIPT, ctx.projectDir], cwd: ctx.envDir, timeoutMs: 120_000, network: false });
  if (r.exitCode !== 0) throw new EnvproofError(`Python's ast could not read the project's imports: ${tail(r.stderr || r.stdout || r.spawnError || '', 5)}`);
  return staticImportsFromScan(r.stdout);
}
