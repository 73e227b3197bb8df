// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { registerCommands } from '../../src/cli/commands.js';
import { runCli } from '../helpers/cli.js';

/** The command names as `envproof --help` lists them. */
function listed(help: string): string[] {
  const section = help.split('\nCommands:\n')[1] ?? '';
  return [...section.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
}

describe('the command line', () => {
  const top = runCli(['--help']);
  const commands = listed(top.stdout);

  it('lists every command in --help', () => {
    assert.equal(top.status, 0, top.stderr);
    for (const name of ['audit', 'fix', 'run', 'repro', 'report', 'verify', 'evaluate', 'evaluate-feature', 'view', 'worker', 'queue', 'env']) {
      assert.ok(commands.includes(name), `${name} in ${commands.join(', ')}`);
    }
  });

  it('loads each command on its own: `envproof <command> --help` is that command’s help', () => {
    for (const name of commands) {
      const r = runCli([name, '--help']);
      assert.equal(r.status, 0, `${name}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: envproof ${name}\\b`), name);
    }
  });

  it('registers only the command invoked (and one registered with it in its module), none for --version', async () => {
    for (const name of commands) {
      const program = new Command('envproof');
      await registerCommands(program, () => {}, name);
      const registered = program.commands.map((c) => c.name());
      assert.ok(registered.includes(name) && registered.length <= 2, `${name}: ${registered.join(', ')}`);
    }
    const version = new Command('envproof');
    await registerCommands(version, () => {}, '--version');
    assert.deepEqual(version.commands, []);
  });

  it('answers an unknown command with the likely one, exit 2; --version with the version', () => {
    const r = runCli(['audti']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown command 'audti'\n\(Did you mean audit\?\)/);
    const v = runCli(['--version']);
    assert.equal(v.status, 0);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
