// tier: quick
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveSuite } from '../../src/tasks/resolve.js';
import { runCli, SHARED } from '../helpers/cli.js';
import { requiresShared } from '../helpers/requires.js';

const PROMPTS = path.join(SHARED, 'data/envgap-paper/data/prompts');
const FOLDER = { python: 'python_prompts', java: 'java_prompts', javascript: 'javascript_prompts', cpp: 'cpp_prompts' } as const;
/** The paper's four languages, the ones it has prompt files for. */
const PAPER_LANGUAGES = Object.keys(FOLDER) as (keyof typeof FOLDER)[];
const promptFile = (language: keyof typeof FOLDER, id: string) => readFileSync(path.join(PROMPTS, FOLDER[language], `${id}.md`), 'utf8');

describe('envgap-prompts suite', requiresShared(SHARED, 'data/envgap-paper/data/prompts'), () => {
  const suite = resolveSuite(`envgap-prompts:${PROMPTS}`);
  const tmp = mkdtempSync(path.join(tmpdir(), 'envproof-envgap-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('holds the 50 tasks, with the requirements of the prompt files', () => {
    assert.equal(suite.tasks.length, 50);
    for (const t of suite.tasks) {
      const text = promptFile('python', t.id);
      const taskPart = text.slice(0, text.indexOf('Create a complete'));
      const bullets = taskPart.split('\n').filter((l) => l.startsWith('- '));
      assert.equal(t.functionalRequirements.length, bullets.length, t.id);
      for (const r of t.functionalRequirements) assert.ok(bullets.includes(`- ${r}`), `${t.id}: ${r}`);
      assert.ok(t.description.length > 0 && taskPart.includes(t.description), `${t.id} description comes from the file`);
    }
  });

  it('gives the prompt file verbatim as the explicit prompt, in every language', () => {
    for (const t of suite.tasks) {
      for (const language of PAPER_LANGUAGES) assert.equal(suite.prompt(t, language, 'explicit'), promptFile(language, t.id), `${t.id} ${language}`);
    }
  });

  it('drops the "Create a complete" block from the implicit prompt but keeps the task and its requirements', () => {
    for (const t of suite.tasks) {
      for (const language of PAPER_LANGUAGES) {
        const file = promptFile(language, t.id);
        const implicit = suite.prompt(t, language, 'implicit');
        assert.doesNotMatch(implicit, /Create a complete|pinned to exact versions|README/, `${t.id} ${language}`);
        assert.ok(file.startsWith(implicit.trimEnd()), `${t.id} ${language}: a prefix of the file`);
        assert.ok(implicit.startsWith(`TASK: ${t.title}\n`));
        const lastRequirement = t.functionalRequirements.at(-1)!;
        assert.ok(implicit.endsWith(`- ${lastRequirement}\n`), `${t.id} ${language}: ends with the last requirement`);
      }
    }
  });

  it('tasks show prints the prompt file through the CLI', () => {
    const r = runCli(['tasks', 'show', 'p_12', '--suite', `envgap-prompts:${PROMPTS}`, '--language', 'java', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { prompt: string; task: { id: string }; language: string; variant: string };
    assert.deepEqual([out.task.id, out.language, out.variant], ['p_12', 'java', 'explicit']);
    assert.equal(out.prompt, promptFile('java', 'p_12'));
  });

  it('fails with exit 2 for a folder without the overview and for a missing prompt file', () => {
    const empty = runCli(['tasks', 'list', '--suite', `envgap-prompts:${tmp}`]);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /no prompt_overview\.csv in /);
    assert.doesNotMatch(empty.stderr, /\n\s+at /, 'no stack trace');

    cpSync(path.join(PROMPTS, 'prompt_overview.csv'), path.join(tmp, 'prompt_overview.csv'));
    cpSync(path.join(PROMPTS, 'python_prompts'), path.join(tmp, 'python_prompts'), { recursive: true });
    const python = runCli(['tasks', 'show', 'p_03', '--suite', `envgap-prompts:${tmp}`, '--variant', 'implicit']);
    assert.equal(python.status, 0, python.stderr);
    const cpp = runCli(['tasks', 'show', 'p_03', '--suite', `envgap-prompts:${tmp}`, '--language', 'cpp']);
    assert.equal(cpp.status, 2);
    assert.match(cpp.stderr, /missing prompt file .*cpp_prompts\/p_03\.md/);
  });
});
