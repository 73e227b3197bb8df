import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { EnvproofError } from '../core/errors.js';
import { renderPrompt } from './prompt.js';
import type { Task, TaskSuite } from './types.js';

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function fail(file: string, where: string, problem: string): never {
  throw new EnvproofError(`invalid task suite ${file}: ${where}: ${problem}`, 'a suite is a YAML or JSON file: { name?, description?, tasks: [{ id, title, domain, complexity, description, functionalRequirements: [..] }] }');
}

function text(file: string, where: string, value: unknown, field: string): string {
  if (typeof value !== 'string' || !value.trim()) fail(file, where, `"${field}" must be a non-empty string`);
  return value.trim();
}

/** Checks a parsed suite document field by field; every problem names the task and the field. */
export function validateSuite(file: string, doc: unknown): Task[] {
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { tasks?: unknown }).tasks)) {
    fail(file, 'top level', 'expected an object with a "tasks" list');
  }
  for (const field of ['name', 'description'] as const) {
    const value = (doc as Record<string, unknown>)[field];
    if (value !== undefined) text(file, 'top level', value, field);
  }
  if ((doc as { tasks: unknown[] }).tasks.length === 0) fail(file, 'top level', 'the "tasks" list is empty');
  const seen = new Set<string>();
  return (doc as { tasks: unknown[] }).tasks.map((raw, i) => {
    const where = `tasks[${i}]`;
    if (typeof raw !== 'object' || raw === null) fail(file, where, 'expected an object');
    const t = raw as Record<string, unknown>;
    const id = text(file, where, t.id, 'id');
    if (!TASK_ID.test(id)) fail(file, where, `id "${id}" may hold only letters, digits, ".", "_" and "-"`);
    if (seen.has(id)) fail(file, where, `duplicate id "${id}"`);
    seen.add(id);
    const at = `task ${id}`;
    const reqs = t.functionalRequirements;
    if (!Array.isArray(reqs) || reqs.length === 0) fail(file, at, '"functionalRequirements" must be a non-empty list of strings');
    return {
      id,
      title: text(file, at, t.title, 'title'),
      domain: text(file, at, t.domain, 'domain'),
      complexity: text(file, at, t.complexity, 'complexity'),
      description: text(file, at, t.description, 'description'),
      functionalRequirements: reqs.map((r, j) => text(file, `${at}, functionalRequirements[${j}]`, r, 'requirement')),
    };
  });
}

/** A suite from a YAML or JSON file, prompted with envproof's own template. */
export function loadSuiteFile(file: string, name = file): TaskSuite {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    throw new EnvproofError(`cannot read task suite ${file}`, 'check the path given to --tasks/--suite');
  }
  let doc: unknown;
  try {
    doc = /\.json$/i.test(file) ? JSON.parse(content) : parseYaml(content);
  } catch (err) {
    throw new EnvproofError(
      `task suite ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`,
      'fix the syntax at the line given; in YAML, put in quotes any text that contains ": " or starts with "{", "[", "*" or "&"',
    );
  }
  return { name, tasks: validateSuite(file, doc), prompt: renderPrompt };
}
