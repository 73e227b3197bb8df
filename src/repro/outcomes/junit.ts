import { XMLParser } from 'fast-xml-parser';
import type { TestResult } from '../types.js';

type Node = Record<string, unknown>;

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => name === 'testsuite' || name === 'testcase' });

function suitesOf(node: Node): Node[] {
  const own = (node.testsuite as Node[] | undefined) ?? [];
  return [...own, ...own.flatMap(suitesOf)];
}

/**
 * Per-test results of a JUnit XML report (pytest --junitxml, Maven Surefire, ctest --output-junit): a test case
 * with <failure> or <error> failed, with <skipped> was skipped, else passed. Ids are "classname::name".
 */
export function parseJunitXml(xml: string): Record<string, TestResult> {
  const doc = parser.parse(xml) as Node;
  const roots: Node[] = doc.testsuites ? [doc.testsuites as Node] : [doc];
  const out: Record<string, TestResult> = {};
  for (const suite of roots.flatMap(suitesOf)) {
    for (const tc of (suite.testcase as Node[] | undefined) ?? []) {
      const cls = String(tc['@classname'] ?? '');
      const id = cls ? `${cls}::${String(tc['@name'])}` : String(tc['@name']);
      const failed = 'failure' in tc || 'error' in tc;
      out[id] = failed ? 'failed' : 'skipped' in tc ? 'skipped' : 'passed';
    }
  }
  return out;
}
