import type { TestResult } from '../types.js';

const RESULT_LINE = /^(\s*)(not ok|ok) \d+ - (.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$/i;

/**
 * Per-test results of `node --test --test-reporter=tap`. Subtests are reported, indented, before their parent;
 * ids join the names of the enclosing tests with " > ". Only leaves count (a parent fails when a child does).
 */
export function parseNodeTap(tap: string): Record<string, TestResult> {
  const lines = tap.split('\n').map((l) => RESULT_LINE.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  // A result line closes the test at its depth; the ones deeper than it that came just before are its children.
  const out: Record<string, TestResult> = {};
  const pending: { depth: number; name: string; result: TestResult }[] = [];
  for (const m of lines) {
    const depth = (m[1] ?? '').length;
    const result: TestResult = m[4] ? 'skipped' : m[2]!.toLowerCase() === 'ok' ? 'passed' : 'failed';
    const children = [];
    while (pending.length && pending.at(-1)!.depth > depth) children.unshift(pending.pop()!);
    const name = unescapeTap(m[3] ?? '');
    if (children.length === 0) pending.push({ depth, name, result });
    else for (const c of children) pending.push({ depth, name: `${name} > ${c.name}`, result: c.result });
  }
  for (const p of pending) out[p.name] = p.result;
  return out;
}

function unescapeTap(s: string): string {
  return s.replace(/\\#/g, '#').replace(/\\\\/g, '\\');
}
