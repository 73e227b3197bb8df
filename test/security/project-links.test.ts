// tier: quick
/**
 * A generated project is untrusted and envproof reads it as root: every project file it reads must resolve inside
 * the project. Real symbolic links to a secret file created outside the project; the secret's marker must never
 * reach the output, and the audit must end with exit 2 naming the link.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { OutsideProjectError, readProjectFile } from '../../src/core/safe-read.js';
import { keepNamedFiles } from '../../src/audit/kept-files.js';
import { readCodemodel } from '../../src/ecosystems/cpp/codemodel.js';
import { buildFileOwnerIndex, installedDistributions } from '../../src/ecosystems/python/record-index.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { runCli } from '../helpers/cli.js';

const MARKER = 'SECRET-MARKER-7f3a91';
const base = mkdtempSync(path.join(tmpdir(), 'envproof-links-'));
const secret = path.join(base, 'outside', 'shadow');
mkdirSync(path.dirname(secret));
writeFileSync(secret, `root:${MARKER}:19000:0:99999:7:::\n`);
after(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
function project(files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = path.join(base, `p${++n}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  for (const [name, target] of Object.entries(links)) symlinkSync(target, path.join(dir, name));
  return dir;
}

function auditRefused(dir: string, naming: RegExp): void {
  const r = runCli(['audit', dir, '--json', '--sandbox', 'host', '-q'], { timeoutMs: 60_000 });
  const all = `${r.stdout}\n${r.stderr}`;
  assert.ok(!all.includes(MARKER), `the secret reached the output:\n${all}`);
  assert.equal(r.status, 2, all);
  // Refused while reading the configuration, before any report: then the message is on standard error only.
  assert.match(r.stdout.trim() ? JSON.parse(r.stdout).error.message : r.stderr.replace(/^envproof: /, ''), naming);
  assert.doesNotMatch(r.stderr, /internal error|at .*\.ts:\d+/);
}

describe('audit never reads through a link out of the project', () => {
  test('requirements.txt that is a link to a file outside', () => {
    auditRefused(project({}, { 'requirements.txt': secret }), /requirements\.txt is a symbolic link out of the project \(to .*shadow\)/);
  });

  test('-r naming a file outside by its absolute path', () => {
    auditRefused(project({ 'requirements.txt': `requests==2.32.3\n-r ${secret}\n` }), /shadow is outside the project/);
  });

  test('-r through a directory link out of the project names the directory link', () => {
    const dir = project({ 'requirements.txt': '-r conf/shadow\n' }, { conf: path.dirname(secret) });
    auditRefused(dir, /^conf is a symbolic link out of the project/);
  });

  test('package.json that is a link to a file outside', () => {
    auditRefused(project({}, { 'package.json': secret }), /package\.json is a symbolic link out of the project/);
  });

  test('pyproject.toml (read for the configuration) that is a link to a file outside', () => {
    auditRefused(project({ 'requirements.txt': '' }, { 'pyproject.toml': secret }), /pyproject\.toml is a symbolic link out of the project/);
  });
});

test('fix on a package.json that is a link out of the project: exit 2, the host file neither shown nor changed', () => {
  const dir = project({}, { 'package.json': secret });
  const saved = path.join(base, 'saved-report.json');
  writeFileSync(saved, JSON.stringify({ schemaVersion: 1, project: dir, ecosystem: 'javascript', components: [], findings: [], runs: [], layers: { declared: [], installed: [], traced: [] } }));
  const r = runCli(['fix', dir, '--from', saved]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /package\.json is a symbolic link out of the project/);
  assert.ok(!`${r.stdout}${r.stderr}`.includes(MARKER));
  assert.equal(readFileSync(secret, 'utf8'), `root:${MARKER}:19000:0:99999:7:::\n`);
});

test("a CMake File API reply naming a file outside its directory is not read (CMake ran the project's code)", async () => {
  const build = path.join(project({}), 'build');
  const reply = path.join(build, '.cmake/api/v1/reply');
  mkdirSync(reply, { recursive: true });
  writeFileSync(path.join(base, 'outside', 'codemodel.json'), JSON.stringify({ configurations: [{ targets: [{ name: MARKER }] }] }));
  const climb = path.relative(reply, path.join(base, 'outside', 'codemodel.json'));
  writeFileSync(path.join(reply, 'index-1.json'), JSON.stringify({ reply: { 'codemodel-v2': { jsonFile: climb } } }));
  await assert.rejects(readCodemodel(build, '/envproof/env/build'), (err: unknown) => err instanceof OutsideProjectError && !String(err).includes(MARKER));
});

describe('readProjectFile', () => {
  test('reads a link that stays inside the project', async () => {
    const dir = project({ 'base.txt': 'six==1.16.0\n' }, { 'requirements.txt': 'base.txt' });
    assert.equal(await readProjectFile(dir, 'requirements.txt', 'utf8'), 'six==1.16.0\n');
  });

  test('refuses a relative link that climbs out with ..', async () => {
    const dir = project({}, { 'requirements.txt': '../outside/shadow' });
    await assert.rejects(readProjectFile(dir, 'requirements.txt'), (err: unknown) => err instanceof OutsideProjectError && !String(err).includes(MARKER));
  });

  test('a FIFO in the project is refused at once instead of blocking the reader', async () => {
    const dir = project({});
    execFileSync('mkfifo', [path.join(dir, 'requirements.txt')]);
    await assert.rejects(readProjectFile(dir, 'requirements.txt'), /requirements\.txt is not a regular file/);
  });

  test('a dangling link out of the project is refused as a link, not reported as a missing file', async () => {
    const dir = project({}, { 'package.json': path.join(base, 'outside', 'no-such-file') });
    await assert.rejects(readProjectFile(dir, 'package.json'), /package\.json is a symbolic link out of the project/);
  });

  test('a missing file is the usual ENOENT (callers treat it as absent)', async () => {
    await assert.rejects(readProjectFile(project({}), 'README.md'), { code: 'ENOENT' });
  });
});

describe("what an install wrote is read without following its links out (the install ran the project's code)", () => {
  test('a dist-info whose METADATA and RECORD are links to a host file: the distribution is named from its directory, the file never read', async () => {
    const site = project({});
    mkdirSync(path.join(site, 'evil-1.0.dist-info'));
    symlinkSync(secret, path.join(site, 'evil-1.0.dist-info', 'METADATA'));
    symlinkSync(secret, path.join(site, 'evil-1.0.dist-info', 'RECORD'));
    mkdirSync(path.join(site, 'fine-2.0.dist-info'));
    writeFileSync(path.join(site, 'fine-2.0.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: Fine\nVersion: 2.0\n');
    writeFileSync(path.join(site, 'fine-2.0.dist-info', 'RECORD'), 'fine/__init__.py,,\n');
    const toHost = (p: string) => (p === '/site' ? site : null);
    const dists = await installedDistributions(['/site'], toHost);
    assert.deepEqual(dists.map((d) => [d.name, d.version]), [['evil', undefined], ['fine', '2.0']]);
    const index = await buildFileOwnerIndex(['/site'], toHost);
    assert.deepEqual([...index.keys()], ['/site/fine/__init__.py'], 'nothing from the linked RECORD (the secret would be a path here)');
  });

  test('a log a message names through a directory the sandboxed program replaced by a link to the host is not copied', async () => {
    const work = project({ 'real.log': 'npm log line\n' }, { logs: path.dirname(secret) });
    const cache = mkdtempSync(path.join(base, 'cache-'));
    const saved = process.env.ENVPROOF_CACHE_DIR;
    process.env.ENVPROOF_CACHE_DIR = cache;
    try {
      const sandbox = { workDir: '/work/w', toHost: (p: string) => (p.startsWith('/work/w') ? p.replace('/work/w', work) : null) } as unknown as Sandbox;
      const lines = await keepNamedFiles('see /work/w/logs/shadow and /work/w/real.log', sandbox, false);
      assert.equal(lines.length, 2, lines.join('\n'));
      assert.match(lines[0]!, /^\/work\/w\/logs\/shadow is in the work directory, which is removed when the audit ends/);
      const kept = /^\/work\/w\/real\.log is kept as (\S+)$/.exec(lines[1]!)?.[1];
      assert.ok(kept, lines[1]);
      assert.equal(readFileSync(kept, 'utf8'), 'npm log line\n');
      const copied = execFileSync('grep', ['-rl', MARKER, cache, '--include=*'], { encoding: 'utf8' }).trim();
      assert.fail(`the secret was copied: ${copied}`);
    } catch (err) {
      // grep exits 1 when nothing matches: the secret is nowhere under the cache.
      if ((err as { status?: number }).status !== 1) throw err;
    } finally {
      if (saved === undefined) delete process.env.ENVPROOF_CACHE_DIR;
      else process.env.ENVPROOF_CACHE_DIR = saved;
    }
  });
});
