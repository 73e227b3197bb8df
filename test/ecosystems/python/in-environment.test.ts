// tier: quick
/**
 * D1 once the environment exists: the manifest is read again only where a marker compares a variable whose value
 * the environment's interpreter gives otherwise than the first reading assumed.
 */
import assert from 'node:assert/strict';
import { release } from 'node:os';
import { after, describe, test } from 'node:test';
import { pythonEcosystem } from '../../../src/ecosystems/python/index.js';
import { hostWorkspace, type Workspace } from '../../helpers/workspace.js';

const spaces: Workspace[] = [];
after(() => Promise.all(spaces.map((w) => w.dispose())));

async function readTwice(requirements: string) {
  const ws = await hostWorkspace('python', '', { files: { 'requirements.txt': requirements } });
  spaces.push(ws);
  const first = await pythonEcosystem.extractDeclared(ws.projectDir);
  const inEnvironment = await pythonEcosystem.declaredInEnvironment!(ws.projectDir, ws.ctx, first);
  return { first, inEnvironment };
}

describe('Python D1 in the environment', () => {
  test('no marker: nothing assumed, the first reading stands', async () => {
    const { first, inEnvironment } = await readTwice('requests==2.32.3\n');
    assert.deepEqual(first.assumedEnvironment, {});
    assert.equal(inEnvironment, first);
  });

  test('a marker the environment agrees with: the first reading stands', async () => {
    const { first, inEnvironment } = await readTwice('requests==2.32.3\nrich==13.9.4 ; os_name == "posix"\n');
    assert.deepEqual(first.assumedEnvironment, { os_name: 'posix' });
    assert.equal(inEnvironment, first);
    assert.deepEqual(inEnvironment.declared.map((d) => d.name), ['requests', 'rich']);
  });

  test('a marker the environment disagrees with: read again, with the interpreter\'s values', async () => {
    // The first reading assumes an empty platform_release; a real interpreter reports the kernel's release.
    assert.notEqual(release(), '');
    const { first, inEnvironment } = await readTwice('requests==2.32.3\nrich==13.9.4 ; platform_release == ""\n');
    assert.deepEqual(first.assumedEnvironment, { platform_release: '' });
    assert.deepEqual(first.declared.map((d) => d.name), ['requests', 'rich']);
    assert.notEqual(inEnvironment, first);
    assert.deepEqual(inEnvironment.declared.map((d) => d.name), ['requests']);
    assert.equal(inEnvironment.assumedEnvironment?.platform_release, release());
  });
});
