/**
 * Python source facts from Python's own parser: one `python3` process reads every file of a project with
 * `ast.parse` (which never executes the code) and prints the facts as JSON. A file the host's Python cannot
 * parse (newer syntax) still yields its imports, read from `tokenize`'s token stream.
 */
import { EnvproofError } from '../core/errors.js';
import { runProcess, tail } from '../core/process.js';
import type { SourceFacts } from './facts-types.js';

/** Reads `[[relative, absolute], ...]` as JSON on stdin, prints one facts object per file. */
export const PYTHON_FACTS_SCRIPT = String.raw`
import ast, io, json, sys, tokenize

def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return dotted(node.value) + "." + node.attr
    if isinstance(node, ast.Call):
        return dotted(node.func) + "()"
    if isinstance(node, ast.Subscript):
        return dotted(node.value) + "[]"
    return "?"

def literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values)
    return None

def docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and literal(body[0].value) is not None:
                out.add(id(body[0].value))
    return out

def target_text(node):
    if isinstance(node, ast.Subscript):
        key = literal(node.slice)
        return target_text(node.value) + "[" + (repr(key) if key is not None else "?") + "]"
    return dotted(node)

def facts(source):
    tree = ast.parse(source)
    skip = docstrings(tree)
    out = {"imports": [], "calls": [], "strings": [], "keyValues": [], "classes": [], "assignments": [], "bindings": []}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                out["assignments"].append({"target": target_text(t), "line": node.lineno, "endLine": node.end_lineno or node.lineno})
    for node in ast.walk(tree):
        bind = []
        if isinstance(node, ast.Assign):
            bind = [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            bind = [(node.target.id, node.annotation)] + ([(node.target.id, node.value)] if node.value is not None else [])
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            bind = [(i.optional_vars.id, i.context_expr) for i in node.items if isinstance(i.optional_vars, ast.Name)]
        elif isinstance(node, ast.arg) and node.annotation is not None:
            bind = [(node.arg, node.annotation)]
        for name, value in bind:
            out["bindings"].append({"name": name, "value": dotted(value), "line": getattr(node, "lineno", 0)})
        # settings["default"]["ENGINE"] = "...": a string under a key, as in a dict.
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            key, value = literal(node.targets[0].slice), literal(node.value)
            if key is not None and value is not None:
                out["keyValues"].append({"key": key, "value": value, "line": node.lineno})
        if isinstance(node, ast.Import):
            for a in node.names:
                out["imports"].append({"spec": a.name, "line": node.lineno, "level": 0, "names": []})
        elif isinstance(node, ast.ImportFrom):
            out["imports"].append({"spec": node.module or "", "line": node.lineno, "level": node.level or 0, "names": [a.name for a in node.names]})
        elif isinstance(node, ast.Call):
            call = {"callee": dotted(node.func), "line": node.lineno, "isNew": False}
            if node.args:
                first = literal(node.args[0])
                if first is not None:
                    call["firstArg"] = first
            out["calls"].append(call)
            for kw in node.keywords:
                value = literal(kw.value)
                if kw.arg and value is not None:
                    out["keyValues"].append({"key": kw.arg, "value": value, "line": kw.value.lineno})
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                key, value = (literal(k) if k is not None else None), literal(v)
                if key is not None and value is not None:
                    out["keyValues"].append({"key": key, "value": value, "line": v.lineno})
        elif isinstance(node, ast.ClassDef):
            out["classes"].append({"name": node.name, "bases": [dotted(b) for b in node.bases], "line": node.lineno})
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and id(node) not in skip:
            value = literal(node)
            if value is not None:
                out["strings"].append({"value": value, "line": node.lineno})
    # The parts of an f-string are constants too: keep the joined string only.
    parts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts.update((v.value, v.lineno) for v in node.values if isinstance(v, ast.Constant))
    out["strings"] = [s for s in out["strings"] if (s["value"], s["line"]) not in parts or "{}" in s["value"]]
    return out

def token_imports(source):
    """Imports from the token stream, for files this interpreter cannot parse."""
    imports, line_tokens = [], []
    def flush():
        names = [t for t in line_tokens if t.type == tokenize.NAME or (t.type == tokenize.OP and t.string == ".")]
        if not names:
            return
        head = names[0].string
        words = [t.string for t in names]
        if head == "import":
            mods, cur = [], ""
            for w in words[1:]:
                if w == "as":
                    break
                cur += w
            imports.append({"spec": cur, "line": names[0].start[0], "level": 0, "names": []})
        elif head == "from" and "import" in words:
            at = words.index("import")
            mod = "".join(words[1:at])
            level = len(mod) - len(mod.lstrip("."))
            imports.append({"spec": mod.lstrip("."), "line": names[0].start[0], "level": level, "names": [w for w in words[at + 1:] if w not in (".", "as")]})
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                flush()
                line_tokens = []
            elif tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
                line_tokens.append(tok)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return imports

result = []
for rel, path in json.load(sys.stdin):
    entry = {"file": rel, "language": "python"}
    try:
        with open(path, "rb") as f:
            source = f.read().decode("utf-8", errors="replace")
        entry.update(facts(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        entry.update({"imports": token_imports(source), "calls": [], "strings": [], "keyValues": [], "classes": [], "assignments": [], "bindings": [],
                      "parseError": type(err).__name__ + ": " + str(err)})
    except OSError as err:
        entry.update({"imports": [], "calls": [], "strings": [], "keyValues": [], "classes": [], "assignments": [], "bindings": [], "parseError": str(err)})
    result.append(entry)
json.dump(result, sys.stdout)
`;

const PARSE_TIMEOUT_MS = 10 * 60_000;

/** Facts of the given Python files (`[relative, absolute]` paths), parsed by the host's `python3`. */
export async function pythonFacts(files: readonly (readonly [string, string])[]): Promise<SourceFacts[]> {
  if (files.length === 0) return [];
  const r = await runProcess(['python3', '-c', PYTHON_FACTS_SCRIPT], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' },
    timeoutMs: PARSE_TIMEOUT_MS,
    stdin: JSON.stringify(files),
    maxOutputBytes: 512 * 1024 * 1024,
  });
  if (r.spawnError) throw new EnvproofError(`python3 is needed to parse Python sources: ${r.spawnError}`, 'install python3 (scripts/setup.sh does)');
  if (r.exitCode !== 0) throw new EnvproofError('the Python source parser failed', undefined, tail(r.stderr));
  return JSON.parse(r.stdout) as SourceFacts[];
}
