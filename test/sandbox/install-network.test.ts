import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { filterRules, hostNetworks } from '../../src/sandbox/install-network.js';
import { runCliAsync } from '../helpers/cli.js';
import { buildEnvironment, isolatingBackends } from './helpers.js';

/**
 * Install and build steps of every ecosystem try to reach listeners on this machine's own addresses (its
 * 127.0.0.1 and each non-loopback address), as a hostile setup.py, postinstall, execute_process or antrun
 * step would reach a Redis queue or a PostgreSQL store. Under bwrap and podman nothing arrives, and the same
 * install still gets its package from the registry; under --sandbox host the same steps do arrive (so the
 * steps really ran and the listeners really listen), and the report says that installs were not cut off.
 */

interface Listener {
  host: string;
  port: number;
  server: net.Server;
}

function listen(host: string, received: string[]): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => {
      socket.setEncoding('utf8');
      let text = '';
      socket.on('data', (c: string) => (text += c));
      socket.on('close', () => received.push(`${host} ${text.trim()}`));
      socket.on('error', () => {});
    });
    server.once('error', reject);
    server.listen(0, host, () => resolve({ host, port: (server.address() as net.AddressInfo).port, server }));
  });
}

/** The host's non-loopback IPv4 addresses. */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

let scratch: string;
const opened: Listener[] = [];

/**
 * One audit's listeners, so that audits can run at once: one on 127.0.0.1 and one on each non-loopback address.
 * `targets` is where a step connects to: each listener at its own address, and the loopback's through slirp's gateway.
 */
interface Probe {
  listeners: Listener[];
  targets: [string, number][];
  /** Connections received, each as "<listener address> <first line the client sent>". */
  received: string[];
  /** The listener addresses that received something. */
  reachedHosts(): string[];
}

async function probe(): Promise<Probe> {
  const received: string[] = [];
  const listeners = await Promise.all(['127.0.0.1', ...hostAddresses()].map((host) => listen(host, received)));
  opened.push(...listeners);
  const targets: [string, number][] = [...listeners.map((l): [string, number] => [l.host, l.port]), ['10.0.2.2', listeners[0]!.port]];
  return { listeners, targets, received, reachedHosts: () => [...new Set(received.map((line) => line.split(' ')[0]!))].sort() };
}

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** A shell line that sends `tag` to every target with bash's /dev/tcp (each attempt may fail). */
function bashProbe(targets: [string, number][], tag: string): string {
  return targets.map(([h, p]) => `(exec 3<>/dev/tcp/${h}/${p} && echo ${tag} >&3) 2>/dev/null`).join('; ') + '; true';
}

const xml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

const FIXTURES: Record<string, { files: (targets: [string, number][]) => Record<string, string>; run: string; installed?: string }> = {
  python: {
    // No requirements.txt: envproof runs `pip install .`, whose PEP 517 build (setuptools, fetched from PyPI) runs setup.py.
    files: (targets) => ({
      'pyproject.toml': '[build-system]\nrequires = ["setuptools==69.5.1"]\nbuild-backend = "setuptools.build_meta"\n',
      'setup.py': [
        'import socket',
        'from setuptools import setup',
        `for host, port in ${JSON.stringify(targets)}:`,
        '    try:',
        '        socket.create_connection((host, port), timeout=5).sendall(b"pip setup.py\\n")',
        '    except OSError:',
        '        pass',
        "setup(name='netprobe', version='0.1', py_modules=['netprobe'], install_requires=['six==1.16.0'])",
        '',
      ].join('\n'),
      'netprobe.py': 'import six\n',
    }),
    run: 'python -c "import netprobe"',
    installed: 'six',
  },
  javascript: {
    files: (targets) => ({
      'package.json': JSON.stringify({ name: 'netprobe', version: '1.0.0', scripts: { postinstall: 'node probe.js' }, dependencies: { ms: '2.1.3' } }),
      'probe.js': [
        "const net = require('net');",
        `for (const [host, port] of ${JSON.stringify(targets)}) {`,
        "  const s = net.connect({ host, port, timeout: 5000 }, () => s.end('npm postinstall\\n'));",
        "  s.on('error', () => {}); s.on('timeout', () => s.destroy());",
        '}',
        '',
      ].join('\n'),
      'index.js': "require('ms');\n",
    }),
    run: 'node index.js',
    installed: 'ms',
  },
  cpp: {
    // The configure step runs execute_process; the same step downloads from a public registry.
    files: (targets) => ({
      'CMakeLists.txt': [
        'cmake_minimum_required(VERSION 3.16)',
        'project(netprobe CXX)',
        `execute_process(COMMAND bash -c "${bashProbe(targets, 'cmake-execute_process')}")`,
        'file(DOWNLOAD https://pypi.org/simple/six/ ${CMAKE_BINARY_DIR}/six.html STATUS fetched TIMEOUT 60)',
        'list(GET fetched 0 code)',
        'if(NOT code EQUAL 0)',
        '  message(FATAL_ERROR "the registry could not be reached: ${fetched}")',
        'endif()',
        'add_executable(netprobe main.cpp)',
        '',
      ].join('\n'),
      'main.cpp': 'int main() { return 0; }\n',
    }),
    run: './build/netprobe',
  },
  java: {
    // The build step (mvn package) runs antrun, which Maven first fetches from Maven Central.
    files: (targets) => ({
      'pom.xml': `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>test</groupId><artifactId>netprobe</artifactId><version>1.0</version>
  <properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <build><plugins><plugin>
    <groupId>org.apache.maven.plugins</groupId><artifactId>maven-antrun-plugin</artifactId><version>3.1.0</version>
    <executions><execution><phase>validate</phase><goals><goal>run</goal></goals><configuration><target>
      <exec executable="bash" failonerror="false"><arg value="-c"/><arg value="${xml(bashProbe(targets, 'maven-antrun'))}"/></exec>
    </target></configuration></execution></executions>
  </plugin></plugins></build>
</project>
`,
    }),
    run: 'true',
  },
};

async function audit(language: string, backend: string, targets: [string, number][]): Promise<{ status: number | null; report: any; stderr: string }> {
  const dir = project(`${language}-${backend}`, FIXTURES[language]!.files(targets));
  const r = await runCliAsync(['audit', dir, '--json', '--sandbox', backend, '--run', FIXTURES[language]!.run]);
  let report: any;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`${language} under ${backend}: no report (exit ${r.status}):\n${r.stderr}`);
  }
  return { status: r.status, report, stderr: r.stderr };
}

// The audits run at once: each waits mostly on its install, and each has listeners of its own.
describe("install and build steps cannot reach the host's services", { concurrency: true }, () => {
  const podman = isolatingBackends().find((b) => b.backend === 'podman')!;

  before(async () => {
    for (const language of Object.keys(FIXTURES)) buildEnvironment(language);
    if (!podman.skip) buildEnvironment('python', 'podman');
    scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-install-network-'));
  });
  after(() => {
    for (const l of opened) l.server.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("refuses private, link-local and the host's own networks in the filter", () => {
    const rules = filterRules(hostNetworks({ eth0: [{ family: 'IPv4', address: '192.0.2.7', cidr: '192.0.2.7/24', internal: false, netmask: '255.255.255.0', mac: '' }] }));
    for (const range of ['10.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16', '192.0.2.0/24']) assert.ok(rules.includes(`-d ${range} -j REJECT`), range);
    assert.ok(rules.indexOf('-d 10.0.2.3/32 -p udp --dport 53 -j ACCEPT') < rules.indexOf('-d 10.0.0.0/8 -j REJECT'), "slirp's DNS forwarder passes first");
  });

  for (const language of Object.keys(FIXTURES)) {
    it(`${language}: nothing arrives from bwrap's install, the registry works; under host it arrives`, async () => {
      const [isolated, open] = await Promise.all([probe(), probe()]);
      const [bwrap, host] = await Promise.all([audit(language, 'bwrap', isolated.targets), audit(language, 'host', open.targets)]);
      // The last connections' ends are recorded.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(bwrap.report.error, undefined, bwrap.stderr);
      const installed = FIXTURES[language]!.installed;
      if (installed) assert.ok(bwrap.report.layers.installed.some((d: { name: string }) => d.name === installed), `${installed} came from the registry: ${bwrap.stderr}`);
      assert.deepEqual(isolated.received, [], `bwrap: the install reached the host`);

      assert.equal(host.report.error, undefined, host.stderr);
      // Under host the step reaches the loopback listener and every non-loopback one (10.0.2.2 is no address there).
      assert.deepEqual(open.reachedHosts(), open.listeners.map((l) => l.host).sort(), open.received.join('\n'));
      assert.match(host.report.sandbox.warning, /installs and builds were not cut off from this machine/);
    });
  }

  it('a setup.py that stops its parent (ptrace, then SIGSTOP) and hangs is ended at --install-timeout, which the error names', async () => {
    const dir = project('python-stops-parent', {
      'pyproject.toml': '[build-system]\nrequires = ["setuptools==69.5.1"]\nbuild-backend = "setuptools.build_meta"\n',
      'setup.py': [
        'import ctypes, os, signal, time',
        'parent = os.getppid()',
        'ctypes.CDLL(None, use_errno=True).ptrace(16, parent, None, None)  # PTRACE_ATTACH: the parent stops',
        'os.kill(parent, signal.SIGSTOP)',
        'time.sleep(3600)',
        '',
      ].join('\n'),
    });
    const started = Date.now();
    const r = await runCliAsync(['audit', dir, '--json', '--sandbox', 'bwrap', '--install-timeout', '40', '--run', 'true']);
    const seconds = (Date.now() - started) / 1000;
    const report = JSON.parse(r.stdout);
    assert.equal(report.error?.step, 'install', r.stderr);
    assert.match(report.error.message, /pip install did not finish within 40 s \(--install-timeout\)/);
    assert.match(r.stderr, /raise --install-timeout/);
    // The venv, the setuptools download and the limit itself; not the sleep's hour.
    assert.ok(seconds < 180, `ended after ${seconds} s`);
  });

  it('python under podman: nothing arrives, the registry works', { skip: podman.skip }, async () => {
    const isolated = await probe();
    const r = await audit('python', 'podman', isolated.targets);
    assert.equal(r.report.error, undefined, r.stderr);
    assert.ok(r.report.layers.installed.some((d: { name: string }) => d.name === 'six'), r.stderr);
    assert.deepEqual(isolated.received, []);
  });
});
