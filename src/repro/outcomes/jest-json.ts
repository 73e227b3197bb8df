import type { TestResult } from '../types.js';

interface JestAssertion {
  fullName?: string;
  title?: string;
  status?: string;
}
interface JestFile {
  name?: string;
  assertionResults?: JestAssertion[];
}

/**
 * Per-test results of Jest's `--json` report (Vitest's json reporter writes the same shape). Ids are
 * "file › full name" with the file relative to `rootDir`.
 */
export function parseJestJson(json: string, rootDir: string): Record<string, TestResult> {
  const doc = JSON.parse(json) as { testResults?: JestFile[] };
  const out: Record<string, TestResult> = {};
  for (const file of doc.testResults ?? []) {
    const name = (file.name ?? '').startsWith(`${rootDir}/`) ? (file.name ?? '').slice(rootDir.length + 1) : (file.name ?? '');
    for (const a of file.assertionResults ?? []) {
      const status = a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      out[`${name} › ${a.fullName ?? a.title ?? ''}`] = status;
    }
  }
  return out;
}
