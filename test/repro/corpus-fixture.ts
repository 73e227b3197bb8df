/** A small Go repository and patches on it: the corpus of the `repro --corpus` tests (local and on the queue). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();

/** A small Go repository, and patches made as diffs of real edits to it. */
export function corpusRepo() {
  const dir = mkdtempSync(path.join(tmpdir(), 'repro-corpus-'));
  const repo = path.join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q');
  writeFileSync(path.join(repo, 'go.mod'), 'module example.com/clock\n\ngo 1.19\n');
  writeFileSync(path.join(repo, 'clock.go'), 'package clock\n\nimport "time"\n\nfunc Hour(unix int64) int { return time.Unix(unix, 0).UTC().Hour() }\n');
  writeFileSync(path.join(repo, 'clock_test.go'), 'package clock\n\nimport "testing"\n\nfunc TestHour(t *testing.T) {\n\tif Hour(1700000000) != 22 {\n\t\tt.Fatal("hour")\n\t}\n}\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  const commit = git(repo, 'rev-parse', 'HEAD');
  const patch = (name: string, edit: () => void) => {
    edit();
    const file = path.join(dir, `${name}.patch`);
    writeFileSync(file, git(repo, 'diff') + '\n');
    git(repo, 'checkout', '-q', '--', '.');
    return file;
  };
  // The agent's patch switched to local time: it passed where it was evaluated (UTC) and depends on TZ.
  const local = patch('local-time', () => writeFileSync(path.join(repo, 'clock.go'), 'package clock\n\nimport "time"\n\nfunc Hour(unix int64) int { return time.Unix(unix, 0).Hour() }\n'));
  const rename = patch('rename', () => writeFileSync(path.join(repo, 'clock.go'), 'package clock\n\nimport "time"\n\n// Hour is the UTC hour of a Unix time.\nfunc Hour(unix int64) int { return time.Unix(unix, 0).UTC().Hour() }\n'));
  const broken = path.join(dir, 'broken.patch');
  writeFileSync(broken, '--- a/nothing.go\n+++ b/nothing.go\n@@ -1,1 +1,1 @@\n-package nothing\n+package something\n');
  return { dir, repo, commit, local, rename, broken };
}

/** A corpus line: `go test`, recorded as passing on 2026-11-01, with the fields given. */
export function corpusLine(o: Record<string, unknown>): string {
  return JSON.stringify({ cmd: 'go test ./...', outcome: { status: 'pass' }, recordedAt: '2026-11-01T00:00:00Z', ...o });
}
