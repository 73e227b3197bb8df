// tier: quick
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EnvproofError, UsageError } from '../../src/core/errors.js';
import { parseStraceLog, StraceLogParser, type ParsedTrace } from '../../src/trace/index.js';
import { scratchDir } from './scenario.js';

function parse(log: string, cwd = '/work', gate?: string): ParsedTrace {
  const parser = new StraceLogParser(cwd, gate === undefined ? {} : { gate });
  for (const line of log.split('\n')) parser.push(line);
  return parser.finish();
}

const sorted = (s: Set<string>) => [...s].sort();

test('relative paths follow chdir; failed calls, signals and other calls are ignored', () => {
  const r = parse(
    [
      '100   execve("/usr/bin/python3", ["python3", "app.py"], 0x7ffc /* 3 vars */) = 0',
      '100   openat(AT_FDCWD</work>, "app.py", O_RDONLY|O_CLOEXEC) = 3</work/app.py>',
      '100   chdir("src/./pkg")                = 0',
      '100   openat(AT_FDCWD</work/src/pkg>, "../lib/util.py", O_RDONLY) = 3</work/src/lib/util.py>',
      '100   open("data//in.txt", O_RDONLY)    = 4</work/src/pkg/data/in.txt>',
      '100   openat(AT_FDCWD</work/src/pkg>, "missing.txt", O_RDONLY) = -1 ENOENT (No such file or directory)',
      '100   chdir("/nowhere")                 = -1 ENOENT (No such file or directory)',
      '100   openat(AT_FDCWD</work/src/pkg>, "/etc/../etc/hosts", O_RDONLY) = 5</etc/hosts>',
      '100   read(3, "x", 1)                   = 1',
      '100   --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_uid=0, si_status=0} ---',
      '100   +++ exited with 3 +++',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), [
    '/etc/hosts',
    '/usr/bin/python3',
    '/work/app.py',
    '/work/src/lib/util.py',
    '/work/src/pkg/data/in.txt',
  ]);
  assert.deepEqual(r.execs, ['/usr/bin/python3']);
  assert.equal(r.rootPid, 100);
  assert.deepEqual(r.rootEnd, { kind: 'exited', code: 3 });
  assert.equal(r.lines, 11);
  assert.equal(r.skippedTotal, 0);
});

test('files are kept per program: a forked child runs the program of its parent until it execs its own', () => {
  const r = parse(
    [
      '10 execve("/bin/sh", ["sh", "-c", "prog && ls"], 0x1 /* 1 var */) = 0',
      '10 openat(AT_FDCWD</work>, "/lib/libc.so.6", O_RDONLY) = 3</lib/libc.so.6>',
      '10 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x1) = 11',
      '11 openat(AT_FDCWD</work>, "before-exec.txt", O_RDONLY) = 3</work/before-exec.txt>',
      '11 execve("/work/build/prog", ["prog"], 0x1 /* 1 var */) = 0',
      '11 openat(AT_FDCWD</work>, "/lib/libz.so.1", O_RDONLY) = 3</lib/libz.so.1>',
      '11 +++ exited with 0 +++',
      '10 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x1) = 12',
      '12 execve("/usr/bin/ls", ["ls"], 0x1 /* 1 var */) = 0',
      '12 openat(AT_FDCWD</work>, "/lib/libselinux.so.1", O_RDONLY) = 3</lib/libselinux.so.1>',
      '12 +++ exited with 0 +++',
      '10 +++ exited with 0 +++',
    ].join('\n'),
  );
  assert.deepEqual(
    [...r.byProgram].map(([program, files]) => [program, sorted(files)]),
    [
      ['/bin/sh', ['/bin/sh', '/lib/libc.so.6', '/work/before-exec.txt']],
      ['/work/build/prog', ['/lib/libz.so.1', '/work/build/prog']],
      ['/usr/bin/ls', ['/lib/libselinux.so.1', '/usr/bin/ls']],
    ],
  );
});

test('unfinished and resumed halves are joined per pid; a lone resumed half is skipped', () => {
  const r = parse(
    [
      '10 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x1) = 11',
      '10 openat(AT_FDCWD</work>, "a.txt", O_RDONLY <unfinished ...>',
      '11 openat(AT_FDCWD</work>, "b.txt", O_RDONLY <unfinished ...>',
      '10 <... openat resumed>)                = 3</work/a.txt>',
      '11 <... openat resumed>)                = -1 EACCES (Permission denied)',
      '12 <... read resumed>"x", 1)            = 1',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), ['/work/a.txt']);
  assert.equal(r.skippedTotal, 1);
  assert.equal(r.skipped[0]?.reason, 'unmatched-resumed');
  assert.equal(r.skipped[0]?.line, 6);
});

test('a child inherits the cwd at fork even when its lines come before the fork returns', () => {
  const r = parse(
    [
      '20 chdir("proj")                      = 0',
      '20 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>',
      '21 open("child.txt", O_RDONLY)        = 3</work/proj/child.txt>',
      '21 execve("./tool", ["./tool"], 0x5 /* 1 var */) = 0',
      '20 <... clone resumed>, child_tidptr=0x7f) = 21',
      '20 chdir("/srv")                      = 0',
      '21 open("after.txt", O_RDONLY)        = 3</work/proj/after.txt>',
      '20 vfork()                            = 22',
      '22 open("v.txt", O_RDONLY)            = 3</srv/v.txt>',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), ['/srv/v.txt', '/work/proj/after.txt', '/work/proj/child.txt', '/work/proj/tool']);
  assert.deepEqual(r.execs, ['/work/proj/tool']);
});

test('threads cloned with CLONE_FS share the cwd; forked processes do not', () => {
  const r = parse(
    [
      '30 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, exit_signal=0} => {parent_tid=[31]}, 88) = 31',
      '30 fork()                             = 32',
      '31 chdir("/opt")                      = 0',
      '30 open("t.txt", O_RDONLY)            = 3</opt/t.txt>',
      '32 open("f.txt", O_RDONLY)            = 3</work/f.txt>',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), ['/opt/t.txt', '/work/f.txt']);
});

test('dirfd arguments resolve through the -y annotation; fchdir moves the cwd', () => {
  const r = parse(
    [
      '40 openat(3</data/set>, "part/x.csv", O_RDONLY) = 4</data/set/part/x.csv>',
      '40 openat2(5</etc>, "ssl/openssl.cnf", {flags=O_RDONLY|O_CLOEXEC, resolve=0}, 24) = 6</etc/ssl/openssl.cnf>',
      '40 openat(7, "noannotation.txt", O_RDONLY) = 8',
      '40 fchdir(9</home/u>)                 = 0',
      '40 openat(AT_FDCWD</home/u>, ".bashrc", O_RDONLY) = 3</home/u/.bashrc>',
      '40 execveat(10</usr/bin/env>, "", ["env"], 0x1 /* 0 vars */, AT_EMPTY_PATH) = 0',
      '40 execveat(AT_FDCWD</home/u>, "bin/run", ["run"], 0x1 /* 0 vars */, 0) = 0',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), [
    '/data/set/part/x.csv',
    '/etc/ssl/openssl.cnf',
    '/home/u/.bashrc',
    '/home/u/bin/run',
    '/usr/bin/env',
  ]);
  assert.deepEqual(r.execs, ['/usr/bin/env', '/home/u/bin/run']);
  assert.deepEqual(
    r.skipped.map((s) => [s.line, s.reason]),
    [[3, 'unknown-directory']],
  );
});

test('escaped strings and annotations decode to the UTF-8 path', () => {
  const r = parse(
    [
      '50 openat(AT_FDCWD</work>, "caf\\303\\251.txt", O_RDONLY) = 3</work/caf\\303\\251.txt>',
      '50 openat(AT_FDCWD</work>, "say \\"hi\\"\\\\now", O_RDONLY) = 3',
      '50 openat(AT_FDCWD</work>, "line\\nbreak\\ttab", O_RDONLY) = 3',
      '50 openat(AT_FDCWD</work>, "\\x68\\x65x", O_RDONLY) = 3',
      '50 openat(4</tmp/a\\76b \\"q\\">, "f", O_RDONLY) = 5',
      '50 openat(AT_FDCWD</work>, "\\0017", O_RDONLY) = 3',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), [
    '/tmp/a>b "q"/f',
    '/work/\u00017',
    '/work/café.txt',
    '/work/hex',
    '/work/line\nbreak\ttab',
    '/work/say "hi"\\now',
  ]);
});

test('argument strings that look like a result do not hide the real one', () => {
  const r = parse(
    [
      '60 execve("/bin/sh", ["sh", "-c", "echo \\") = 0\\""], 0x1 /* 2 vars */) = -1 EACCES (Permission denied)',
      '60 execve("/bin/dash", ["dash", "(x) = 1"], 0x1 /* 2 vars */) = 0',
      '60 exit_group(0)                     = ?',
    ].join('\n'),
  );
  assert.deepEqual(r.execs, ['/bin/dash']);
  assert.deepEqual(sorted(r.files), ['/bin/dash']);
});

test('bracketed and absent pid prefixes, signals that kill the root', () => {
  const bracketed = parse(
    [
      'execve("/bin/true", ["true"], 0x1 /* 0 vars */) = 0',
      '[pid  71] open("x", O_RDONLY)        = 3',
    ].join('\n'),
    '/w',
  );
  // The first line has no pid: it is the root (strace without -f); pid 71 never forked from it.
  assert.deepEqual(sorted(bracketed.files), ['/bin/true']);
  assert.equal(bracketed.skipped[0]?.reason, 'unknown-directory');

  const killed = parse(
    ['[pid 80] open("/a", O_RDONLY) = 3', '[pid 80] --- SIGSEGV {si_signo=SIGSEGV, si_code=SI_USER} ---', '[pid 80] +++ killed by SIGSEGV (core dumped) +++'].join('\n'),
  );
  assert.deepEqual(killed.rootEnd, { kind: 'killed', signal: 'SIGSEGV', coreDumped: true });
  assert.deepEqual(sorted(killed.files), ['/a']);
});

test('timestamps (-t, -tt, -ttt, -r) after the pid, or alone, are skipped', () => {
  const withPid = parse(
    [
      '5 12:00:01 open("/a", O_RDONLY) = 3',
      '5 12:00:01.123456 open("/b", O_RDONLY) = 3',
      '5 1700000000.123456 open("/c", O_RDONLY) = 3',
      '[pid     5] 12:00:02 open("/d", O_RDONLY) = 3',
    ].join('\n'),
  );
  assert.deepEqual(sorted(withPid.files), ['/a', '/b', '/c', '/d']);
  const alone = parse(['12:00:01.5 open("/e", O_RDONLY) = 3', '     0.000120 open("/f", O_RDONLY) = 3'].join('\n'));
  assert.deepEqual(sorted(alone.files), ['/e', '/f']);
});

test('an execve finished by the thread-group leader after "superseded"', () => {
  const r = parse(
    [
      '90 chdir("app")                      = 0',
      '90 clone3({flags=CLONE_VM|CLONE_FS|CLONE_THREAD} => {parent_tid=[91]}, 88) = 91',
      '91 execve("bin/next", ["next"], 0x1 /* 0 vars */ <unfinished ...>',
      '90 +++ superseded by execve in pid 91 +++',
      '90 <... execve resumed>)              = 0',
    ].join('\n'),
  );
  assert.deepEqual(r.execs, ['/work/app/bin/next']);
  assert.equal(r.skippedTotal, 0);
});

test('a reused pid waits for the fork that creates its new process', () => {
  const r = parse(
    [
      '100 chdir("/a")                      = 0',
      '100 fork()                           = 101',
      '101 +++ exited with 0 +++',
      '100 chdir("/b")                      = 0',
      '101 open("x", O_RDONLY)              = 3',
      '100 fork()                           = 101',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), ['/b/x']);
});

test('a process whose parent never appears uses the AT_FDCWD annotation for its cwd', () => {
  const r = parse(
    [
      '1 execve("/bin/sh", ["sh"], 0x1 /* 0 vars */) = 0',
      '7 open("/abs", O_RDONLY)             = 3',
      '7 open("rel", O_RDONLY)              = 3',
      '7 openat(AT_FDCWD</proc/x>, "y", O_RDONLY) = 3',
      '7 open("z", O_RDONLY)                = 3',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), ['/abs', '/bin/sh', '/proc/x/y', '/proc/x/z']);
  assert.deepEqual(
    r.skipped.map((s) => s.reason),
    ['unknown-directory'],
  );
});

test('parseStraceLog streams a file, including a last line without newline', async () => {
  const file = path.join(scratchDir(), 'log');
  const body = Array.from({ length: 5000 }, (_, i) => `5 openat(AT_FDCWD</r>, "d/f${i % 7}", O_RDONLY) = 3`);
  writeFileSync(file, body.join('\n') + '\n5 +++ exited with 0 +++');
  const r = await parseStraceLog(file, '/r');
  assert.equal(r.lines, 5001);
  assert.deepEqual(sorted(r.files), ['/r/d/f0', '/r/d/f1', '/r/d/f2', '/r/d/f3', '/r/d/f4', '/r/d/f5', '/r/d/f6']);
  assert.deepEqual(r.rootEnd, { kind: 'exited', code: 0 });
});

test('parseStraceLog rejects a missing log and a relative start directory with clear errors', async () => {
  await assert.rejects(parseStraceLog('/nonexistent/strace.log', '/'), (e) => e instanceof EnvproofError && /cannot read the strace log/.test(e.message));
  await assert.rejects(parseStraceLog('/dev/null', 'rel/dir'), (e) => e instanceof UsageError && /must be absolute/.test(e.message));
});

test('an unfinished call continued on a line without pid (strace -z after a vfork) belongs to the call before', () => {
  // As strace 6.1 printed it: the vfork child's failed exec attempts were left out, so strace went on with
  // the parent's line, without "<... vfork resumed>" and without the pid.
  const r = parse(
    [
      '5     execve("/usr/bin/python3", ["python3", "app.py"], 0x7ffc /* 3 vars */) = 0',
      '5     chdir("sub")                      = 0',
      '5     vfork( <unfinished ...>',
      ')                                       = 7',
      '7     execve("/usr/bin/python3", ["python3", "-c", "..."], 0x7fff /* 11 vars */) = 0',
      '7     openat(AT_FDCWD</work/sub>, "../data/e.txt", O_RDONLY|O_CLOEXEC) = 3</work/data/e.txt>',
      '7     +++ exited with 0 +++',
      '5     +++ exited with 0 +++',
    ].join('\n'),
  );
  assert.deepEqual(sorted(r.files), ['/usr/bin/python3', '/work/data/e.txt']);
  assert.equal(r.skippedTotal, 0);
});

test('with a gate, the trace starts at its exec: the sandbox\'s own processes and what came before are left out', () => {
  const gate = '/tmp/w/.envproof-gate-1';
  const r = parse(
    [
      '900 execve("/usr/bin/prlimit", ["prlimit", "--nofile=1024"], 0x7ffd /* 1 var */) = 0',
      '900 openat(AT_FDCWD</work>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>',
      '900 execve("/usr/bin/bwrap", ["bwrap", "--ro-bind"], 0x7ffd /* 1 var */) = 0',
      '900 clone3({flags=CLONE_NEWPID|CLONE_NEWNS, exit_signal=SIGCHLD}, 88) = 901',
      '901 openat(AT_FDCWD</>, "/root/.cache/rootfs/usr", O_RDONLY|O_PATH) = 4</usr>',
      `901 execve("${gate}", ["${gate}", "python3", "app.py"], 0x55 /* 9 vars */) = 0`,
      '901 execve("/usr/bin/python3", ["python3", "app.py"], 0x55 /* 9 vars */) = 0',
      '900 openat(AT_FDCWD</work>, "/etc/bwrap-late.conf", O_RDONLY) = 5</etc/bwrap-late.conf>',
      '901 openat(AT_FDCWD</work>, "app.py", O_RDONLY) = 3</work/app.py>',
      // A child in the sandbox's pid namespace: its own lines carry the host's pid, strace says which that is.
      "901 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7f) = 3 /* 905 in strace's PID NS */",
      '905 openat(AT_FDCWD</work>, "child.txt", O_RDONLY) = 3</work/child.txt>',
      '906 openat(AT_FDCWD</work>, "/etc/unrelated", O_RDONLY) = 3</etc/unrelated>',
      '905 +++ exited with 0 +++',
      '901 +++ killed by SIGSEGV (core dumped) +++',
      '900 +++ exited with 139 +++',
    ].join('\n'),
    '/work',
    gate,
  );
  assert.deepEqual(sorted(r.files), ['/usr/bin/python3', '/work/app.py', '/work/child.txt']);
  assert.deepEqual(r.execs, ['/usr/bin/python3']);
  assert.equal(r.rootPid, 901);
  assert.deepEqual(r.rootEnd, { kind: 'killed', signal: 'SIGSEGV', coreDumped: true });
});

test('with a gate that never ran, nothing is traced', () => {
  const r = parse(
    [
      '900 execve("/usr/bin/bwrap", ["bwrap"], 0x7ffd /* 1 var */) = 0',
      '900 openat(AT_FDCWD</work>, "/etc/passwd", O_RDONLY) = 3</etc/passwd>',
      '900 +++ exited with 1 +++',
    ].join('\n'),
    '/work',
    '/tmp/w/.envproof-gate-2',
  );
  assert.equal(r.rootPid, null);
  assert.equal(r.files.size, 0);
});
