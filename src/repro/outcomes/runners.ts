import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunnerId, TestResult } from '../types.js';
import { parseGoTestJson } from './go-json.js';
import { parseJestJson } from './jest-json.js';
import { parseJunitXml } from './junit.js';
import { parseNodeTap } from './node-tap.js';
import { readProjectFile } from '../../core/safe-read.js';

/** How each runner is recognised in a command line (or in the `test` script `npm test` runs). */
const RUNNER_PATTERNS: readonly [RunnerId, RegExp][] = [
  ['pytest', /(?:^|[\s/])(?:py\.test|pytest|-m\s+pytest)(?=\s|$)/],
  ['jest', /(?:^|[\s/])jest(?=\s|$)/],
  ['vitest', /(?:^|[\s/])vitest(?:\s+run)?(?=\s|$)/],
  ['node-test', /(?:^|[\s/])node\s+(?:--[\w-]+(?:=\S+)?\s+)*--test(?=\s|$)/],
  ['go-test', /(?:^|\s)go\s+test(?=\s|$)/],
  ['surefire', /(?:^|[\s/])mvnw?\s(?:[^&|;]*\s)?(?:test|verify|package|install)(?=\s|$)/],
  ['ctest', /(?:^|[\s/])ctest(?=\s|$)/],
];

const NPM_TEST = /(?:^|\s)(?:npm\s+(?:run\s+)?test|npm\s+t|yarn\s+test|pnpm\s+test)(?=\s|$)/;
const SEPARATOR = /&&|\|\||[;|\n]/g;

export interface RunnerMatch {
  runner: RunnerId;
  /** Where arguments for the runner go: the end of the simple command that invokes it. */
  insertAt: number;
  /** Arguments pass through `npm test` only after `--`. */
  viaScript: boolean;
}

function endOfSimpleCommand(command: string, from: number): number {
  SEPARATOR.lastIndex = from;
  const m = SEPARATOR.exec(command);
  return m ? m.index : command.length;
}

function matchIn(text: string): { runner: RunnerId; end: number } | undefined {
  for (const [runner, pattern] of RUNNER_PATTERNS) {
    const m = pattern.exec(text);
    if (m) return { runner, end: m.index + m[0].length };
  }
  return undefined;
}

/** The runner a test command invokes, directly or through package.json's `test` script; undefined when none is known. */
export async function detectRunner(command: string, hostProject: string): Promise<RunnerMatch | undefined> {
  const direct = matchIn(command);
  if (direct) return { runner: direct.runner, insertAt: endOfSimpleCommand(command, direct.end), viaScript: false };
  const npm = NPM_TEST.exec(command);
  if (!npm) return undefined;
  const pkg = await readProjectFile(hostProject, 'package.json', 'utf8').then((t) => JSON.parse(t) as { scripts?: Record<string, string> }).catch(() => undefined);
  const script = pkg?.scripts?.test;
  const inScript = script ? matchIn(script) : undefined;
  if (!inScript) return undefined;
  return { runner: inScript.runner, insertAt: endOfSimpleCommand(command, npm.index + npm[0].length), viaScript: true };
}

/** The command with `args` given to its runner. */
export function withRunnerArgs(command: string, match: RunnerMatch, args: readonly string[]): string {
  if (args.length === 0) return command;
  const before = command.slice(0, match.insertAt).trimEnd();
  const dashes = match.viaScript && !/\s--(?:\s|$)/.test(before) ? ' --' : '';
  return `${before}${dashes} ${args.join(' ')}${command.slice(match.insertAt).length ? ` ${command.slice(match.insertAt).trimStart()}` : ''}`;
}

/** Where a runner writes the report envproof reads, and how it is asked to. */
export interface ReportRequest {
  /** Arguments for the runner. */
  args: string[];
  /** Environment for the run (pytest takes its options from PYTEST_ADDOPTS). */
  env: Record<string, string>;
}

/** The arguments that make `runner` write a report envproof can read; `reportPath` is a path inside the sandbox. */
export function reportRequest(runner: RunnerId, reportPath: string): ReportRequest {
  switch (runner) {
    case 'pytest':
      return { args: [], env: { PYTEST_ADDOPTS: `--junitxml=${reportPath}` } };
    case 'jest':
      return { args: ['--json', `--outputFile=${reportPath}`], env: {} };
    case 'vitest':
      return { args: ['--reporter=json', `--outputFile=${reportPath}`], env: {} };
    case 'node-test':
      // Options after the test files would reach the tests as arguments; NODE_OPTIONS takes the reporter.
      return { args: [], env: { NODE_OPTIONS: '--test-reporter=tap' } };
    case 'go-test':
      return { args: ['-json'], env: {} };
    case 'ctest':
      return { args: ['--output-junit', reportPath], env: {} };
    case 'surefire':
      return { args: [], env: {} };
  }
}

export interface RunOutput {
  stdout: string;
  /** Host path of the report file asked for. */
  hostReport: string;
  /** Host path of the project copy (Surefire writes under target/). */
  hostProject: string;
  /** The project directory as the runner saw it (Jest reports absolute file names). */
  insideProject: string;
}

/** Per-test results of a finished run, or undefined when the runner left no report. */
export async function readResults(runner: RunnerId, out: RunOutput): Promise<Record<string, TestResult> | undefined> {
  const file = () => readFile(out.hostReport, 'utf8').catch(() => undefined);
  switch (runner) {
    case 'pytest':
    case 'ctest': {
      const xml = await file();
      return xml === undefined ? undefined : parseJunitXml(xml);
    }
    case 'jest':
    case 'vitest': {
      const json = await file();
      return json === undefined ? undefined : parseJestJson(json, out.insideProject);
    }
    case 'node-test':
      return nonEmpty(parseNodeTap(out.stdout));
    case 'go-test':
      return nonEmpty(parseGoTestJson(out.stdout));
    case 'surefire':
      return surefireResults(path.join(out.hostProject, 'target', 'surefire-reports'));
  }
}

function nonEmpty(r: Record<string, TestResult>): Record<string, TestResult> | undefined {
  return Object.keys(r).length ? r : undefined;
}

async function surefireResults(dir: string): Promise<Record<string, TestResult> | undefined> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => /^TEST-.*\.xml$/.test(f)).sort();
  if (files.length === 0) return undefined;
  const all: Record<string, TestResult> = {};
  for (const f of files) Object.assign(all, parseJunitXml(await readProjectFile(dir, f, 'utf8')));
  return all;
}
