import assert from 'node:assert/strict';
import path from 'node:path';
import { venvDir, venvPython } from '../../src/ecosystems/python/pip.js';
import { describeEquivalence } from './equivalence.js';

/**
 * Second route to D3: the distributions owning the modules the interpreter has loaded once the program ends, for
 * the modules loaded from site-packages (a backport such as argparse is installed but shadowed by the standard
 * library's module of the same name, which comes first on sys.path).
 */
const SYS_MODULES_PROBE = [
  'import os, re, runpy, sys, sysconfig, importlib.metadata as md',
  // What the interpreter loaded before the program (the stock venv's setuptools hook, a .pth file) is not the program's.
  'at_start = set(sys.modules)',
  'sys.argv = sys.argv[1:]',
  'try:',
  '    runpy.run_path(sys.argv[0], run_name="__main__")',
  'except BaseException:', // a program that fails has loaded what it loaded until then
  '    pass',
  'owners = md.packages_distributions()',
  'site = tuple(os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("purelib", "platlib"))',
  'installed = [n for n, m in list(sys.modules.items()) if n not in at_start and os.path.realpath(getattr(m, "__file__", None) or "/").startswith(site)]',
  'dists = {d for m in installed for d in owners.get(m.split(".")[0], [])}',
  'print("\\n" + ",".join(sorted(re.sub(r"[-_.]+", "-", d).lower() for d in dists)))',
].join('\n');

describeEquivalence({
  ecosystem: 'python',
  fixtures: path.join(import.meta.dirname, '..', 'audit', 'fixtures'),
  traced: ['py-argparse', 'py-console-script', 'py-crash', 'py-discovery', 'py-editable', 'py-hang', 'py-missing', 'py-pandas', 'py-pkg-resources', 'py-yaml-lazy'],
  untraced: {
    'py-binary-manifest': 'its requirements.txt is binary: refused before any install',
    'py-include-cycle': 'its requirements files include each other: refused before pip runs',
    'py-missing-package': 'pip cannot install a package that does not exist',
    'py-no-manifest': 'there is no manifest to install',
  },
  timeoutSec: { 'py-hang': 3 },
  // Installed with `-e .`: the console script is the only entry point, and the detection does not choose it.
  run: { 'py-editable': 'wordcount', 'py-missing': 'python cli.py' },
  async alsoCheck(fixture, p, fast) {
    const argv = p.requests[0]!.argv;
    // A --run command runs under sh: the probe runs its file (`python cli.py`) or the console script's file
    // (`wordcount`) with the venv's interpreter.
    const [first, ...rest] = argv[0] === '/bin/sh' ? argv[2]!.split(' ') : [];
    const shellRun = first === 'python' ? [venvPython(p.ctx), ...rest] : [venvPython(p.ctx), path.posix.join(venvDir(p.ctx), 'bin', first ?? ''), ...rest];
    const [python, script, ...args] = argv[0] === '/bin/sh' ? shellRun : argv;
    const r = await p.sandbox.exec({ ...p.requests[0]!, argv: [python!, '-c', SYS_MODULES_PROBE, script!, ...args] });
    if (r.timedOut) return; // a program that never ends has no final sys.modules
    assert.equal(r.exitCode, 0, r.stderr);
    const loaded = r.stdout.trimEnd().split('\n').at(-1)!;
    // The project's own distribution (py-editable's, imported from the project directory) is in no reported layer.
    const reported = fast.traced.map((d) => d.name).filter((n) => !p.own.has(n)).sort();
    assert.deepEqual(loaded === '' ? [] : loaded.split(','), reported, `${fixture}: sys.modules`);
  },
});
