// tier: quick
import assert from 'node:assert/strict';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EnvproofError } from '../../../src/core/errors.js';
import { javascriptEcosystem as js } from '../../../src/ecosystems/javascript/index.js';
import type { InstallResult, RunChoice } from '../../../src/ecosystems/types.js';
import type { NpmInstallDetails } from '../../../src/ecosystems/javascript/npm-tree.js';
import { workspace } from './helpers.js';

const noInstall: InstallResult<NpmInstallDetails> = { installed: [], commands: [], durationMs: 0, details: { tree: { name: 'project', dependencies: [] }, problems: [], lsExitCode: 0, unreviewedInstallScripts: [] } };

/** The default run of a project made of the given files. */
async function choose(files: Record<string, string>): Promise<{ run: RunChoice; projectDir: string }> {
  const ws = await workspace({ files });
  try {
    return { run: await js.defaultRun(ws.ctx, noInstall), projectDir: ws.projectDir };
  } finally {
    await ws.dispose();
  }
}

const pkg = (json: object) => JSON.stringify(json);

describe('javascript defaultRun', () => {
  it('bin as a string', async () => {
    const { run, projectDir } = await choose({ 'package.json': pkg({ bin: 'bin/x.js', main: 'lib/index.js' }) });
    assert.equal(run.reason, 'package.json bin');
    assert.deepEqual(run.argv, ['node', path.join(projectDir, 'bin/x.js')]);
  });

  it('a bin object with one entry', async () => {
    const { run } = await choose({ 'package.json': pkg({ bin: { tool: './t.js' } }) });
    assert.equal(run.reason, 'package.json bin "tool" (its only entry)');
    assert.ok(run.argv[1]?.endsWith('/t.js'));
  });

  it('main, resolved like node does (a directory with index.js)', async () => {
    const { run, projectDir } = await choose({ 'package.json': pkg({ main: 'lib', scripts: { start: 'node other.js' } }), 'lib/index.js': '' });
    assert.equal(run.reason, 'package.json main');
    assert.deepEqual(run.argv, ['node', path.join(projectDir, 'lib')]);
  });

  it('main without its file falls through to the start script and says why', async () => {
    const { run } = await choose({ 'package.json': pkg({ main: 'index.js', scripts: { start: 'node app.js' } }), 'app.js': '' });
    assert.equal(run.reason, 'package.json scripts.start (package.json main "index.js" does not exist)');
    assert.equal(run.argv[0], 'sh');
    assert.match(run.argv[2] ?? '', /; node app\.js$/);
  });

  it('then index.js, server.js, app.js at the top, in that order', async () => {
    const both = await choose({ 'package.json': pkg({ name: 'x' }), 'app.js': '', 'server.js': '' });
    assert.equal(both.run.reason, 'server.js at the top of the project');
    assert.deepEqual(both.run.argv, ['node', path.join(both.projectDir, 'server.js')]);
    const index = await choose({ 'package.json': pkg({ main: 'missing.js' }), 'index.js': '', 'app.js': '' });
    assert.equal(index.run.reason, 'index.js at the top of the project (package.json main "missing.js" does not exist)');
  });

  it('no entry point at all is an EnvproofError that suggests --run', async () => {
    const err = await choose({ 'package.json': pkg({ name: 'x', scripts: { test: 'node t.js' } }), 'lib/a.js': '' }).catch((e: unknown) => e);
    assert.ok(err instanceof EnvproofError);
    assert.match(err.message, /^no entry point in package\.json/);
    assert.match(err.hint ?? '', /--run/);
  });
});

describe('javascript shell commands see node_modules/.bin, as npm scripts do', () => {
  it('--run and scripts.start run a .bin tool, even from a directory whose name has a quote', async () => {
    const ws = await workspace({
      files: {
        "it's here/package.json": pkg({ scripts: { start: 'hello started' } }),
        "it's here/node_modules/.bin/hello": '#!/bin/sh\necho "hello $1"\n',
      },
    });
    try {
      const projectDir = path.join(ws.projectDir, "it's here");
      await chmod(path.join(projectDir, 'node_modules/.bin/hello'), 0o755);
      const ctx = { ...ws.ctx, projectDir, host: { ...ws.ctx.host, projectDir } };
      const exec = (run: RunChoice) => ws.ctx.sandbox.exec({ argv: run.argv, cwd: projectDir, timeoutMs: 10_000, network: false });

      const user = js.userRun('hello user', ctx, noInstall);
      assert.equal(user.reason, '--run');
      assert.equal((await exec(user)).stdout, 'hello user\n');
      assert.equal((await exec(await js.defaultRun(ctx, noInstall))).stdout, 'hello started\n');
    } finally {
      await ws.dispose();
    }
  });

  it('--run without a node_modules/.bin still runs ordinary commands', async () => {
    const ws = await workspace({ files: { 'package.json': '{}' } });
    try {
      await mkdir(path.join(ws.projectDir, 'sub'));
      const run = js.userRun('cd sub && pwd', ws.ctx, noInstall);
      const res = await ws.ctx.sandbox.exec({ argv: run.argv, cwd: ws.projectDir, timeoutMs: 10_000, network: false });
      assert.equal(res.stdout, `${path.join(ws.projectDir, 'sub')}\n`);
    } finally {
      await ws.dispose();
    }
  });
});
