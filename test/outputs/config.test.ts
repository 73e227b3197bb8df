/**
 * The configuration file in each of its forms, and bad configurations: rejected before any audit work, with the key
 * named and exit code 2. No install happens here (a few seconds in all).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findConfig, readConfigFile } from '../../src/config/config.js';
import { runCliAsync } from '../helpers/cli.js';

let root: string;
let n = 0;
/** A fresh project directory holding `files`. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = path.join(root, `p${++n}`);
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envproof-config-'));
});
after(() => rm(root, { recursive: true, force: true }));

const WANT = { run: ['python a.py', 'python a.py --other'], timeout: 30, ignore: { phantom: ['tabulate'] }, failOn: ['hidden'] };

describe('configuration forms', () => {
  it('reads envproof.config.json', async () => {
    const dir = await project({ 'envproof.config.json': JSON.stringify(WANT, null, 2), 'requirements.txt': '' });
    const c = await findConfig(dir);
    assert.equal(c?.origin, 'envproof.config.json');
    assert.deepEqual(c?.config, WANT);
  });

  it('reads envproof.config.yaml and .yml', async () => {
    const yaml = 'run:\n  - python a.py\n  - python a.py --other\ntimeout: 30\nignore:\n  phantom: [tabulate]\nfailOn: [hidden]\n';
    for (const name of ['envproof.config.yaml', 'envproof.config.yml']) {
      const c = await findConfig(await project({ [name]: yaml }));
      assert.equal(c?.origin, name);
      assert.deepEqual(c?.config, WANT);
    }
  });

  it('reads [tool.envproof] in pyproject.toml, and nothing from a pyproject.toml without it', async () => {
    const toml = '[project]\nname = "x"\n\n[tool.envproof]\nrun = ["python a.py", "python a.py --other"]\ntimeout = 30\nfailOn = ["hidden"]\nignore = { phantom = ["tabulate"] }\n';
    const c = await findConfig(await project({ 'pyproject.toml': toml }));
    assert.equal(c?.origin, 'pyproject.toml [tool.envproof]');
    assert.deepEqual(JSON.parse(JSON.stringify(c?.config)), WANT, 'TOML tables are null-prototype objects; their content is compared');
    assert.equal(await findConfig(await project({ 'pyproject.toml': '[project]\nname = "x"\n[tool.black]\nline-length = 100\n' })), undefined);
  });

  it('reads the "envproof" key of package.json, and nothing from a package.json without it', async () => {
    const c = await findConfig(await project({ 'package.json': JSON.stringify({ name: 'x', envproof: WANT }) }));
    assert.equal(c?.origin, 'package.json "envproof"');
    assert.deepEqual(c?.config, WANT);
    assert.equal(await findConfig(await project({ 'package.json': '{"name": "x"}' })), undefined);
  });

  it('reads a file given with --config', async () => {
    const dir = await project({ 'ci.yaml': 'timeout: 30\n' });
    assert.deepEqual((await readConfigFile(path.join(dir, 'ci.yaml'))).config, { timeout: 30 });
  });
});

/** `audit <dir>` (and `fix <dir>`) with a bad configuration: exit 2, the key named, no stack trace. */
async function rejects(files: Record<string, string>, pattern: RegExp, command = 'audit'): Promise<void> {
  const dir = await project({ 'requirements.txt': 'six==1.17.0\n', 'main.py': 'import six\n', ...files });
  const r = await runCliAsync([command, dir, '--sandbox', 'host']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
  assert.doesNotMatch(r.stderr, /installing|pip install/, 'rejected before any install');
}

describe('bad configurations', () => {
  it('names an unknown key, also a nested one', async () => {
    await rejects({ 'envproof.config.json': '{"runs": ["python main.py"]}' }, /envproof\.config\.json is not a valid envproof configuration: unknown key "runs"/);
    await rejects({ 'envproof.config.yaml': 'ignore:\n  phantoms: [six]\n' }, /unknown key "ignore\.phantoms" \(in "ignore"\)/, 'fix');
  });

  it('names a key with a value of the wrong type or outside its choices', async () => {
    await rejects({ 'envproof.config.json': '{"timeout": "soon"}' }, /"timeout" must be number/);
    await rejects({ 'envproof.config.json': '{"failOn": ["phantom", "typo"]}' }, /"failOn\[1\]" must be one of "phantom", "hidden"/);
    await rejects({ 'pyproject.toml': '[project]\nname = "x"\n[tool.envproof]\nsandbox = "vm"\n' }, /pyproject\.toml \[tool\.envproof\] is not a valid envproof configuration: "sandbox" must be one of/);
    await rejects({ 'package.json': '{"name": "x", "envproof": {"run": []}}' }, /package\.json "envproof" is not a valid envproof configuration: "run" must be a command string or a non-empty list/);
  });

  it('rejects a configuration file that does not parse, and two configurations at once', async () => {
    await rejects({ 'envproof.config.yaml': 'run: [python main.py\n' }, /envproof\.config\.yaml cannot be read/);
    await rejects({ 'envproof.config.json': '{}', 'envproof.config.yaml': 'timeout: 5\n' }, /the project has 2 envproof configurations: envproof\.config\.json, envproof\.config\.yaml/);
  });
});
