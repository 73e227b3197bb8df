// tier: quick
/** The fast tracer's record format and how one run's records become files, without the kernel. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FastTraceCollector } from '../../src/trace/fast/collect.js';
import { RecordFlag, RecordKind, RecordStream, type TraceRecord } from '../../src/trace/fast/records.js';

/** A record as native/fasttrace/events.h lays it out; `dir` as the kernel walks it, innermost component first. */
function encode(kind: number, tid: number, opts: { run?: number; aux?: number; flags?: number; dir?: string[]; path?: string } = {}): Buffer {
  const dir = Buffer.from((opts.dir ?? []).map((c) => `${c}\0`).join(''), 'latin1');
  const path = Buffer.from(opts.path ?? '', 'latin1');
  const h = Buffer.alloc(24);
  h.writeUInt32LE(24 + dir.length + path.length + 1, 0);
  h.writeUInt32LE(opts.run ?? 1, 4);
  h.writeUInt32LE(tid, 8);
  h.writeUInt32LE(opts.aux ?? 0, 12);
  h.writeUInt8(kind, 16);
  h.writeUInt8(opts.flags ?? 0, 17);
  h.writeUInt16LE(dir.length, 18);
  h.writeUInt16LE(path.length, 20);
  return Buffer.concat([h, dir, path, Buffer.from([0])]);
}

function decodeAll(bytes: Buffer, chunk: number): TraceRecord[] {
  const stream = new RecordStream();
  const out: TraceRecord[] = [];
  for (let at = 0; at < bytes.length; at += chunk) out.push(...stream.push(bytes.subarray(at, at + chunk)));
  return out;
}

test('records are cut from a byte stream however it is split, directories read outermost first', () => {
  const bytes = Buffer.concat([
    encode(RecordKind.open, 7, { path: 'a.txt' }),
    encode(RecordKind.open, 7, { flags: RecordFlag.atDir, dir: ['d', 'w'], path: 'b.txt' }),
    encode(RecordKind.fchdir, 7, {}),
    encode(RecordKind.end, 0, { aux: 3 }),
  ]);
  for (const chunk of [1, 5, 24, 1000]) {
    const rs = decodeAll(bytes, chunk);
    assert.deepEqual(
      rs.map((r) => [r.kind, r.dir, r.path]),
      [
        [RecordKind.open, null, 'a.txt'],
        [RecordKind.open, '/w/d', 'b.txt'],
        [RecordKind.fchdir, '/', ''],
        [RecordKind.end, null, ''],
      ],
      `chunks of ${chunk}`,
    );
    assert.equal(rs[3]!.aux, 3);
  }
});

test('a record shorter than its header is refused, not read as garbage', () => {
  const bad = encode(RecordKind.open, 7, { path: 'x' });
  bad.writeUInt32LE(8, 0);
  assert.throws(() => decodeAll(bad, 100), /malformed fast-tracer record/);
});

function collect(records: Buffer[], cwd = '/work') {
  const c = new FastTraceCollector(cwd);
  for (const r of decodeAll(Buffer.concat(records), 64)) c.push(r);
  return c.result();
}

test('the run starts at the gate; cwd is followed through chdir, fchdir, forks with and without CLONE_FS', () => {
  const r = collect([
    encode(RecordKind.armed, 10),
    encode(RecordKind.exec, 10, { aux: 10, path: '/usr/bin/python3' }),
    encode(RecordKind.chdir, 10, { path: 'src' }),
    encode(RecordKind.open, 10, { path: '../app.py' }),
    encode(RecordKind.fork, 10, { aux: 11, flags: RecordFlag.sharesFs }), // a thread
    encode(RecordKind.fork, 10, { aux: 12 }), // a process
    encode(RecordKind.chdir, 11, { path: '/tmp' }),
    encode(RecordKind.open, 10, { path: 'shared.txt' }), // the thread moved the shared cwd
    encode(RecordKind.open, 12, { path: 'own.txt' }), // the process kept its copy
    encode(RecordKind.fchdir, 12, { dir: ['lib', 'usr'] }),
    encode(RecordKind.open, 12, { path: 'x.so' }),
    encode(RecordKind.open, 12, { flags: RecordFlag.atDir, dir: ['etc'], path: 'hosts' }),
    encode(RecordKind.exit, 12, { aux: 0 }),
    encode(RecordKind.exit, 10, { aux: 11 }), // SIGSEGV
  ]);
  assert.deepEqual([...r.files].sort(), ['/etc/hosts', '/tmp/shared.txt', '/usr/bin/python3', '/usr/lib/x.so', '/work/app.py', '/work/src/own.txt']);
  assert.deepEqual(r.execs, ['/usr/bin/python3']);
  assert.equal(r.gateRan, true);
  assert.equal(r.programStarted, true);
  assert.deepEqual(r.rootEnd, { kind: 'killed', signal: 'SIGSEGV', coreDumped: false });
  assert.equal(r.incomplete, 0);
});

test('a thread that execs continues as the leader; exit codes are read as wait(2) statuses', () => {
  const r = collect([
    encode(RecordKind.armed, 20),
    encode(RecordKind.exec, 20, { aux: 20, path: '/bin/sh' }),
    encode(RecordKind.chdir, 20, { path: '/opt' }),
    encode(RecordKind.fork, 20, { aux: 21, flags: RecordFlag.sharesFs }),
    encode(RecordKind.exit, 20),
    encode(RecordKind.exec, 20, { aux: 21, path: 'tool' }),
    encode(RecordKind.open, 20, { path: 'conf' }),
    encode(RecordKind.exit, 20, { aux: 3 << 8 }),
  ]);
  assert.deepEqual([...r.files].sort(), ['/bin/sh', '/opt/conf', '/opt/tool']);
  assert.deepEqual(r.rootEnd, { kind: 'exited', code: 3 });
  const aborted = collect([encode(RecordKind.armed, 21), encode(RecordKind.exit, 21, { aux: 6 | 0x80 })]);
  assert.deepEqual(aborted.rootEnd, { kind: 'killed', signal: 'SIGABRT', coreDumped: true }, 'SIGABRT, as strace names 6, not SIGIOT');
});

test('records flagged incomplete, and calls of processes never seen to start, make the run incomplete', () => {
  const r = collect([
    encode(RecordKind.armed, 30),
    encode(RecordKind.exec, 30, { aux: 30, path: '/bin/sh' }),
    encode(RecordKind.open, 30, { flags: RecordFlag.atDir | RecordFlag.incomplete, dir: ['deep'], path: 'x' }),
    encode(RecordKind.open, 99, { path: 'y' }),
  ]);
  assert.equal(r.incomplete, 2);
});

test('a gate that never ran, or a program that never started, is told apart', () => {
  assert.equal(collect([]).gateRan, false);
  const r = collect([encode(RecordKind.armed, 40), encode(RecordKind.exit, 40, { aux: 127 << 8 })]);
  assert.equal(r.gateRan, true);
  assert.equal(r.programStarted, false);
});
