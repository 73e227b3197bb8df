// tier: quick
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { EnvproofError } from '../../src/core/errors.js';
import { resolveSuite } from '../../src/tasks/resolve.js';
import type { Task } from '../../src/tasks/types.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const fixture = (name: string) => path.join(FIXTURES, name);

const bundled = parseYaml(readFileSync(path.join(REPO_ROOT, 'suites/bundled.yaml'), 'utf8')) as { tasks: Task[] };

describe('envproof tasks list', () => {
  it('prints id, title, domain and complexity in aligned columns', () => {
    const r = runCli(['tasks', 'list']);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 51);
    assert.match(lines[0]!, /^id\s+title\s+domain\s+complexity$/);
    const domainAt = lines[0]!.indexOf('domain');
    const complexityAt = lines[0]!.indexOf('complexity');
    // The longest title, "Image Resizer and Thumbnail Generator", sets the width of its column.
    assert.equal(domainAt, 'p_01  '.length + 'Image Resizer and Thumbnail Generator'.length + 2);
    for (const [i, t] of bundled.tasks.entries()) {
      const line = lines[i + 1]!;
      assert.ok(line.startsWith(`${t.id}  ${t.title}`), line);
      assert.equal(line.slice(domainAt).split(/\s{2,}/)[0], t.domain, line);
      assert.equal(line.slice(complexityAt), t.complexity, line);
    }
  });

  it('prints the tasks of a user suite as JSON', () => {
    const r = runCli(['tasks', 'list', '--suite', fixture('small.json'), '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), [
      { id: 't1', title: 'Echo', domain: 'System', complexity: 'Low', description: 'Prints its arguments.', functionalRequirements: ['Prints each argument on its own line'] },
    ]);
  });
});

describe('envproof tasks show', () => {
  it('prints the task and the explicit prompt for a language', () => {
    const t = bundled.tasks.find((x) => x.id === 'p_37')!;
    const r = runCli(['tasks', 'show', 'p_37', '--language', 'cpp']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.startsWith(`p_37  GZIP Compression Tool\ndomain: Compression    complexity: Medium    suite: bundled\n`), r.stdout);
    assert.match(r.stdout, /Prompt \(cpp, explicit\):/);
    assert.ok(r.stdout.includes(`\nTASK: GZIP Compression Tool\n\n${t.description}\n\nFUNCTIONAL REQUIREMENTS:\n`));
    for (const req of t.functionalRequirements) assert.ok(r.stdout.includes(`\n- ${req}\n`), req);
    assert.match(r.stdout, /C\+\+ project/);
    assert.match(r.stdout, /G\+\+ 12 and CMake 3\.22/);
    assert.match(r.stdout, /- CMakeLists\.txt, listing every dependency/);
  });

  it('prints the implicit prompt as JSON', () => {
    const r = runCli(['tasks', 'show', 'word-count-2', '--suite', fixture('small.yaml'), '--language', 'javascript', '--variant', 'implicit', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { suite: string; task: Task; prompt: string };
    assert.equal(out.task.title, 'Word Counter Two');
    assert.equal(
      out.prompt,
      [
        'TASK: Word Counter Two',
        '',
        'Counts the words of several files.',
        '',
        'FUNCTIONAL REQUIREMENTS:',
        '- Accepts several files',
        '- When started with no arguments, the program runs a short demonstration on data it creates itself and exits with status 0',
        '',
        'Write it in JavaScript.',
        '',
      ].join('\n'),
    );
  });

  it('rejects an unknown id, language or variant with exit 2', () => {
    const unknown = runCli(['tasks', 'show', 'p_77']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown task in suite bundled: p_77/);
    assert.match(unknown.stderr, /hint: valid ids: p_01, /);
    const lang = runCli(['tasks', 'show', 'p_01', '--language', 'rust']);
    assert.equal(lang.status, 2);
    assert.match(lang.stderr, /'rust' is invalid/);
    const variant = runCli(['tasks', 'show', 'p_01', '--variant', 'vague']);
    assert.equal(variant.status, 2);
    assert.match(variant.stderr, /'vague' is invalid/);
  });
});

describe('user suite validation', () => {
  const cases: [string, RegExp][] = [
    ['missing-field.yaml', /missing-field\.yaml: task no-domain: "domain" must be a non-empty string/],
    ['duplicate-id.yaml', /duplicate-id\.yaml: tasks\[1\]: duplicate id "twice"/],
    ['bad-syntax.yaml', /bad-syntax\.yaml is not valid YAML: /],
  ];
  for (const [file, message] of cases) {
    it(`${file}: exit 2 with a message naming the problem`, () => {
      const r = runCli(['tasks', 'list', '--suite', fixture(file)]);
      assert.equal(r.status, 2, r.stdout);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, message);
      assert.match(r.stderr, /\nhint: /);
      assert.doesNotMatch(r.stderr, /\n\s+at |internal error/);
    });
  }

  it('names the task and field of every other problem', () => {
    const problems: [string, RegExp][] = [
      ['bad.json', /bad\.json is not valid JSON: /],
      ['mapping-requirement.yaml', /task colon, functionalRequirements\[0\]: "requirement" must be a non-empty string/],
      ['no-such-suite.yaml', /cannot read task suite .*no-such-suite\.yaml/],
    ];
    for (const [file, message] of problems) assert.throws(() => resolveSuite(fixture(file)), (err: unknown) => err instanceof EnvproofError && message.test(err.message));
  });
});
