/**
 * Bad input to `audit --from`, `fix --from` and `fix`: a clear message and exit code 2, never a stack trace.
 * Nothing is installed here.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUDIT_SCHEMA_VERSION } from '../../src/audit/report.js';
import { runCliAsync } from '../helpers/cli.js';

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envproof-bad-input-'));
});
after(() => rm(root, { recursive: true, force: true }));

async function fails(args: string[], pattern: RegExp): Promise<void> {
  const r = await runCliAsync(args);
  assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
  assert.equal(r.stdout, '', 'nothing on standard output');
}

describe('bad input to --from and fix', () => {
  it('a missing report file', async () => {
    const missing = path.join(root, 'missing.json');
    await fails(['audit', '--from', missing, '--format', 'sarif'], /cannot read the saved report .*missing\.json: .*no such file/i);
    await fails(['fix', '--from', missing], /cannot read the saved report .*missing\.json/);
  });

  it('a file that is not an audit report: not JSON, a SARIF log, an older schema, a partial report', async () => {
    const write = async (name: string, text: string) => {
      const file = path.join(root, name);
      await writeFile(file, text);
      return file;
    };
    const notJson = await write('notes.txt', 'hello\n');
    await fails(['audit', '--from', notJson, '--sbom', 'cyclonedx'], /the saved report .*notes\.txt is not JSON/);
    const sarif = await write('audit.sarif', JSON.stringify({ version: '2.1.0', runs: [] }));
    await fails(['audit', '--from', sarif, '--format', 'markdown'], /audit\.sarif is not a complete envproof audit report/);
    await fails(['fix', '--from', sarif, '--dry-run'], /audit\.sarif is not a complete envproof audit report/);
    const old = await write('old.json', JSON.stringify({ schemaVersion: AUDIT_SCHEMA_VERSION - 1, project: root, components: [], findings: [], runs: [] }));
    await fails(['audit', '--from', old], /old\.json is not a complete envproof audit report/);
    // A failed audit's JSON (here: no manifest) goes to --out too; it holds the error and no findings.
    const empty = path.join(root, 'empty');
    await mkdir(empty);
    const failed = path.join(root, 'failed.json');
    const audit = await runCliAsync(['audit', empty, '--json', '--out', failed, '--sandbox', 'host', '-q']);
    assert.equal(audit.status, 2, audit.stderr);
    assert.match(JSON.parse(await readFile(failed, 'utf8')).error.message, /no manifest found/);
    await fails(['fix', '--from', failed], /failed\.json is not a complete envproof audit report: it is the report of an audit that failed \(no manifest found/);
  });

  it('audit --from renders the report of a failed audit, and fails as that audit did', async () => {
    const empty = path.join(root, 'empty-again');
    await mkdir(empty);
    const failed = path.join(root, 'failed-again.json');
    assert.equal((await runCliAsync(['audit', empty, '--json', '--out', failed, '--sandbox', 'host', '-q'])).status, 2);
    const text = await runCliAsync(['audit', '--from', failed]);
    assert.equal(text.status, 2, text.stderr);
    assert.match(text.stdout, /^envproof audit of .*empty-again: FAILED\n {2}no manifest found/);
    assert.match(text.stderr, /the saved audit failed: no manifest found/);
    assert.doesNotMatch(text.stderr, /not a complete envproof audit report|^\s+at /m);
    const json = await runCliAsync(['audit', '--from', failed, '--json']);
    assert.equal(json.status, 2);
    assert.deepEqual(JSON.parse(json.stdout), JSON.parse(await readFile(failed, 'utf8')));
    await fails(['audit', '--from', failed, '--sarif'], /failed-again\.json is the report of an audit that failed: it has no findings or components to write as sarif/);

    // A failure after D1 was read: the layers computed so far and the failed step's output are shown.
    const installFailed = path.join(root, 'install-failed.json');
    await writeFile(installFailed, JSON.stringify({
      schemaVersion: AUDIT_SCHEMA_VERSION,
      project: '/p/app',
      ecosystem: 'python',
      manifest: 'requirements.txt',
      layers: { declared: [{ name: 'nosuchpkg', version: '9.9' }] },
      skipped: [{ raw: 'git+https://example.invalid/x.git', reason: 'unnamed-vcs', source: 'requirements.txt:2' }],
      error: { message: 'pip install exited 1', hint: 'check the versions', step: 'install', class: 'project', output: 'line one\nERROR: No matching distribution found for nosuchpkg==9.9\n' },
    }));
    const md = await runCliAsync(['audit', '--from', installFailed, '--format', 'markdown']);
    assert.equal(md.status, 2, md.stderr);
    assert.match(md.stdout, /^### envproof audit: `app` \(python\) — failed\n\n\*\*install failed \(project\): pip install exited 1\*\*/);
    assert.match(md.stdout, /```\nline one\nERROR: No matching distribution found for nosuchpkg==9\.9\n```/);
    assert.match(md.stdout, /\| D1 declared \(1, requirements\.txt\) \| nosuchpkg 9\.9 \|/);
    assert.match(md.stdout, /\| not counted \| git\+https:\/\/example\.invalid\/x\.git \[unnamed-vcs\] at requirements\.txt:2 \|/);
  });

  it('several documents without their files, an unknown SBOM format', async () => {
    const report = path.join(root, 'outputs.json');
    await writeFile(report, JSON.stringify({ schemaVersion: AUDIT_SCHEMA_VERSION, project: root, components: [], findings: [], runs: [] }));
    await fails(['audit', '--from', report, '--sbom', 'cyclonedx', '--sarif'], /--sbom cyclonedx and --sarif cannot all go to one place\nhint: name a file for each: --sbom cyclonedx=/);
    await fails(['audit', '--from', report, '--sbom', 'cyclonedx', '--sbom', 'spdx', '--out', path.join(root, 'x.json')], /--sbom cyclonedx and --sbom spdx cannot all go to one place/);
    await fails(['audit', '--from', report, '--sbom', 'swid=a.xml'], /--sbom takes cyclonedx or spdx, optionally with =<file>, not "swid=a\.xml"/);
    await fails(['audit', '--from', report, '--sbom', 'spdx='], /--sbom spdx= names no file/);
    // The directory to audit written after --sarif would be taken for its file.
    await fails(['audit', '--from', report, '--sarif', root], /--sarif .*: that is a directory; --sarif takes the file to write\nhint: put the directory to audit first/);
  });

  it('a report of another directory, and a directory that does not exist', async () => {
    const report = path.join(root, 'other.json');
    await writeFile(report, JSON.stringify({ schemaVersion: AUDIT_SCHEMA_VERSION, project: '/nonexistent/elsewhere', components: [], findings: [], runs: [] }));
    await fails(['fix', root, '--from', report], /the saved report is of \/nonexistent\/elsewhere, not of /);
    await fails(['fix', '--from', report], /no such directory: \/nonexistent\/elsewhere/);
    await fails(['fix', path.join(root, 'absent'), '--dry-run'], /no such directory: .*absent/);
    await fails(['fix'], /give the project directory to fix/);
  });
});

describe('fix with nothing to change', () => {
  it('exits 1 when a failing finding remains that fix leaves alone (a phantom the code imports)', async () => {
    const dir = path.join(root, 'kept-phantom');
    await mkdir(dir);
    const requirements = 'tabulate==0.9.0\n';
    await writeFile(path.join(dir, 'requirements.txt'), requirements);
    await writeFile(path.join(dir, 'main.py'), 'import sys\nif "--table" in sys.argv:\n    import tabulate\n');
    // A saved report, written by hand: its one finding is a phantom main.py imports behind --table.
    const report = {
      schemaVersion: AUDIT_SCHEMA_VERSION,
      project: dir,
      ecosystem: 'python',
      manifest: 'requirements.txt',
      layers: { declared: [{ name: 'tabulate', version: '0.9.0' }], installed: [{ name: 'tabulate', version: '0.9.0' }], traced: [] },
      components: [],
      findings: [{ kind: 'phantom', name: 'tabulate', phantom: 'not-traced', importedAt: ['main.py:3'], location: { file: 'requirements.txt', line: 1 }, advice: 'trace it' }],
      runs: [{ command: 'python main.py', started: true, success: true }],
    };
    const file = path.join(root, 'kept-phantom.json');
    await writeFile(file, JSON.stringify(report));
    const r = await runCliAsync(['fix', '--from', file, '--remove-phantom', '--sandbox', 'host']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /left alone: tabulate \(phantom\): the code imports it \(main\.py:3\)/);
    assert.match(r.stderr, /nothing to change in the manifest/);
    assert.equal(await readFile(path.join(dir, 'requirements.txt'), 'utf8'), requirements);
  });
});
