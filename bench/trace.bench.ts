/**
 * Throughput of the strace log parser on a large synthetic log. Target: ≥ 500,000 lines/s.
 * (What tracing costs a program, per tracer, is in tracers.bench.ts.)
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median } from '../src/metrics/stats.js';
import { parseStraceLog } from '../src/trace/index.js';

const LOG_LINES = 2_500_000;
const PARSE_TARGET = 500_000;

/** Writes a log shaped like `strace -f -y` output of a Python program: opens, misses, forks, threads, execs. */
async function writeSyntheticLog(file: string, lines: number): Promise<void> {
  const out = createWriteStream(file);
  const site = '/usr/lib/python3/dist-packages';
  const packages = ['numpy', 'requests', 'urllib3', 'idna', 'certifi', 'charset_normalizer', 'yaml', 'six'];
  let written = 0;
  let chunk: string[] = [];
  const emit = (line: string) => {
    chunk.push(line);
    written++;
  };
  let pid = 1000;
  emit(`${pid} execve("/usr/bin/python3", ["python3", "app.py"], 0x7ffd0 /* 12 vars */) = 0`);
  for (let i = 0; written < lines; i++) {
    const pkg = packages[i % packages.length]!;
    const mod = `${site}/${pkg}/sub${i % 13}/mod${i % 97}.py`;
    switch (i % 10) {
      case 0:
      case 1:
      case 2:
      case 3:
        emit(`${pid} openat(AT_FDCWD</srv/app>, "${mod}", O_RDONLY|O_CLOEXEC) = 3<${mod}>`);
        break;
      case 4:
        emit(`${pid} openat(AT_FDCWD</srv/app>, "${site}/${pkg}/__init__.cpython-311-x86_64-linux-gnu.so", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`);
        break;
      case 5:
        emit(`${pid} openat(AT_FDCWD</srv/app>, "data/input_${i % 50}.csv", O_RDONLY|O_CLOEXEC) = 4</srv/app/data/input_${i % 50}.csv>`);
        break;
      case 6:
        emit(`${pid} openat(AT_FDCWD</srv/app>, "${mod}", O_RDONLY|O_CLOEXEC <unfinished ...>`);
        emit(`${pid + 1} openat(3</usr/lib/python3.11>, "enc\\303\\251/caf\\303\\251.py", O_RDONLY) = 5</usr/lib/python3.11/enc\\303\\251/caf\\303\\251.py>`);
        emit(`${pid} <... openat resumed>)            = 3<${mod}>`);
        break;
      case 7:
        emit(`${pid} clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, child_tid=0x7f, parent_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff80, tls=0x7f} => {parent_tid=[${pid + 1}]}, 88) = ${pid + 1}`);
        break;
      case 8:
        emit(`${pid} --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=${pid + 2}, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---`);
        break;
      default:
        emit(`${pid} clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = ${pid + 2}`);
        emit(`${pid + 2} execve("/usr/bin/git", ["git", "rev-parse", "HEAD"], 0x55 /* 12 vars */) = 0`);
        emit(`${pid + 2} openat(AT_FDCWD</srv/app>, ".git/HEAD", O_RDONLY) = 3</srv/app/.git/HEAD>`);
        emit(`${pid + 2} +++ exited with 0 +++`);
        emit(`${pid + 1} +++ exited with 0 +++`);
        pid += 3;
        emit(`${pid - 3} clone(child_stack=NULL, flags=SIGCHLD) = ${pid}`);
        emit(`${pid} chdir("/srv/app")                  = 0`);
        break;
    }
    if (chunk.length >= 10_000) {
      if (!out.write(chunk.join('\n') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = [];
    }
  }
  out.end(chunk.join('\n') + '\n');
  await new Promise<void>((r) => out.once('finish', () => r()));
}

async function parsing(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'envproof-bench-log-'));
  const file = path.join(dir, 'strace.log');
  await writeSyntheticLog(file, LOG_LINES);
  const mb = statSync(file).size / 1e6;
  const rates: number[] = [];
  const cpuRates: number[] = [];
  let lines = 0;
  let files = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const r = await parseStraceLog(file, '/srv/app');
    const cpu = process.cpuUsage(cpu0);
    lines = r.lines;
    files = r.files.size;
    rates.push(r.lines / ((performance.now() - t0) / 1000));
    cpuRates.push(r.lines / ((cpu.user + cpu.system) / 1e6));
  }
  const rate = median(rates)!;
  console.log(`parsing: synthetic log of ${lines.toLocaleString('en')} lines (${mb.toFixed(0)} MB, ${files} distinct files), median of 3`);
  console.log(`    ${Math.round(rate).toLocaleString('en')} lines/s wall, ${(mb / (lines / rate)).toFixed(0)} MB/s${rate >= PARSE_TARGET ? '  (target ≥ 500,000 met)' : '  (target ≥ 500,000 MISSED)'}`);
  // On a shared machine wall time includes waiting for a core; CPU time (all threads) does not.
  console.log(`    ${Math.round(median(cpuRates)!).toLocaleString('en')} lines per CPU-second; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
  rmSync(dir, { recursive: true, force: true });
}

await parsing();
