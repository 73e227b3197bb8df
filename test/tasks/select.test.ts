// tier: quick
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { findTask, resolveSuite, selectTasks } from '../../src/tasks/resolve.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const bundled = resolveSuite();
const ids = (spec?: string) => selectTasks(bundled, spec).map((t) => t.id);
const p = (n: number) => `p_${String(n).padStart(2, '0')}`;

describe('selectTasks', () => {
  it('selects every task for "all" or nothing', () => {
    const every = Array.from({ length: 50 }, (_, i) => p(i + 1));
    assert.deepEqual(ids(), every);
    assert.deepEqual(ids('all'), every);
  });

  it('takes comma lists and ranges, in suite order, each task once', () => {
    assert.deepEqual(ids('p_01,p_03'), ['p_01', 'p_03']);
    assert.deepEqual(ids('p_01-p_05'), ['p_01', 'p_02', 'p_03', 'p_04', 'p_05']);
    assert.deepEqual(ids('p_48-p_50, p_02 ,p_49'), ['p_02', 'p_48', 'p_49', 'p_50']);
    assert.deepEqual(ids('p_07-p_07'), ['p_07']);
  });

  it('names unknown ids and lists the valid ones', () => {
    assert.throws(
      () => ids('p_01,p_51,x'),
      (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.match(err.message, /unknown tasks in suite bundled: p_51, x$/);
        assert.match(err.hint ?? '', /^valid ids: p_01, p_02, .*, p_50$/);
        return true;
      },
    );
    assert.throws(() => ids('p_45-p_99'), /unknown task in suite bundled: p_99$/);
    assert.throws(() => ids('p_05-p_01'), (err: unknown) => err instanceof UsageError && /runs backwards/.test(err.message) && err.hint === 'write it as p_01-p_05');
    assert.throws(() => ids(' , '), UsageError);
  });

  it('reads ids containing "-" as ids first, then as range ends', () => {
    const suite = resolveSuite(path.join(FIXTURES, 'small.yaml'));
    const sel = (spec: string) => selectTasks(suite, spec).map((t) => t.id);
    assert.deepEqual(sel('word-count-2'), ['word-count-2']);
    assert.deepEqual(sel('word-count-word-count-2'), ['word-count', 'word-count-2']);
    assert.throws(() => sel('word-count-3'), /unknown task in suite .*small\.yaml: word-count-3$/);
  });

  it('findTask takes one exact id', () => {
    assert.equal(findTask(bundled, 'p_30').title, 'Markdown to HTML Converter');
    assert.throws(() => findTask(bundled, 'p_01-p_02'), /unknown task in suite bundled: p_01-p_02/);
  });
});
