import type { TestResult } from '../types.js';

interface GoEvent {
  Action?: string;
  Package?: string;
  Test?: string;
}

/** Per-test results of `go test -json`: the last pass/fail/skip event of each test; ids are "package.Test/Subtest". */
export function parseGoTestJson(stream: string): Record<string, TestResult> {
  const out: Record<string, TestResult> = {};
  for (const line of stream.split('\n')) {
    if (!line.startsWith('{')) continue;
    let ev: GoEvent;
    try {
      ev = JSON.parse(line) as GoEvent;
    } catch {
      continue;
    }
    if (!ev.Test) continue;
    const id = `${ev.Package ?? ''}.${ev.Test}`;
    if (ev.Action === 'pass') out[id] = 'passed';
    else if (ev.Action === 'fail') out[id] = 'failed';
    else if (ev.Action === 'skip') out[id] = 'skipped';
  }
  return out;
}
