/**
 * How many assertions a Postman test script makes when the server answers as it should, counted from its text:
 * `tests[...] = ...` assignments and `pm.test(...)` calls outside `else` branches (the branches a failure or an
 * empty list takes). A script that throws before its assertions ran still owes them: this is what it owed.
 */
const ASSERTION = /tests\[[^\]]+\]\s*=(?!=)|\bpm\.test\s*\(/g;
const ELSE = /\belse\s*(?:if\s*\([^)]*\)\s*)?\{/g;

/** The text with every `else { ... }` block (braces matched) removed. */
function withoutElseBranches(text: string): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(ELSE)) {
    if (m.index < from) continue;
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < text.length && depth > 0; i++) depth += text[i] === '{' ? 1 : text[i] === '}' ? -1 : 0;
    out += text.slice(from, m.index);
    from = i;
  }
  return out + text.slice(from);
}

export function scriptAssertionCount(lines: readonly string[]): number {
  return (withoutElseBranches(lines.join('\n')).match(ASSERTION) ?? []).length;
}
