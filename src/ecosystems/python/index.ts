import path from 'node:path';
import { NoEntryPointError, StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { DeclaredResult, Dependency } from '../../core/types.js';
import { traceRun } from '../../trace/index.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice, TracedDependency } from '../types.js';
import { agreesWithAssumptions, extractPythonDeclared } from './declared.js';
import { findPythonEntry } from './entry.js';
import { MARKER_ENV_SCRIPT, markerEnvironmentFromJson } from './markers.js';
import { installedDiff, pipInstall, venvDir, venvEnv, venvPython } from './pip.js';
import { buildFileOwnerIndex, distributionsFromDirectory, installedDistributions, sourceOfBytecode } from './record-index.js';
import { isFile } from '../../core/fs.js';
import { shellCommandLine } from '../../core/shell.js';
import { localProjectScripts } from './local-project.js';
import { pipReportPath, pythonComponentFacts } from './component-facts.js';
import { pythonManifestEditor } from './manifest-edit.js';
import { pythonStaticImports } from './static-imports.js';
import { pythonFacts } from './facts.js';
import { pythonRepro } from './repro.js';

interface PythonInstallDetails {
  sitePackages: string[];
  baseline: Dependency[];
  pythonVersion: string;
  /** The files a bare interpreter start opens (site, .pth files and what they import): not evidence of use. */
  startupFiles: ReadonlySet<string>;
}

/**
 * Puts into a venv made `--without-pip` what `python3 -m venv` would have put there: the wheels ensurepip
 * brings (Python 3.11: pip and setuptools; Debian's from /usr/share/python-wheels), unpacked into site-packages,
 * with their console scripts. ensurepip itself runs pip to install them, about 15 s on a busy machine; a
 * wheel of pure Python is installed by unpacking it, well under a second.
 */
const SEED_VENV_SCRIPT = String.raw`
import ensurepip, os, sys, sysconfig, zipfile
site = sysconfig.get_paths()["purelib"]
bindir = os.path.dirname(sys.executable)
for name, pkg in sorted(ensurepip._get_packages().items()):
    wheel = pkg.wheel_path or os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", pkg.wheel_name)
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
        entry_points = [n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = z.read(entry_points[0]).decode() if entry_points else ""
    section = None
    for line in (l.strip() for l in text.splitlines()):
        if line.startswith("["):
            section = line
        elif section == "[console_scripts]" and "=" in line:
            script, target = (p.strip() for p in line.split("=", 1))
            module, func = target.split(":")
            path = os.path.join(bindir, script)
            with open(path, "w") as f:
                f.write("#!%s\nimport sys\nfrom %s import %s\nif __name__ == '__main__':\n    sys.exit(%s())\n" % (sys.executable, module, func.split(".")[0], func))
            os.chmod(path, 0o755)
    print(name, pkg.version)
`;

async function createVenv(ctx: AuditContext): Promise<void> {
  const hint = 'check that python3 and its venv module are installed (`envproof doctor`)';
  const r = await ctx.sandbox.exec({ argv: ['python3', '-m', 'venv', '--without-pip', venvDir(ctx)], cwd: ctx.envDir, timeoutMs: 300_000, network: false });
  if (r.exitCode !== 0) throw new StepFailedError('install', 'other', 'could not create a Python virtual environment', tail(r.stderr || r.stdout || r.spawnError || ''), hint);
  const seeded = await ctx.sandbox.exec({ argv: [venvPython(ctx), '-I', '-c', SEED_VENV_SCRIPT], cwd: ctx.envDir, timeoutMs: 120_000, network: false });
  if (seeded.exitCode !== 0) throw new StepFailedError('install', 'other', "could not put ensurepip's packages into the virtual environment", tail(seeded.stderr || seeded.spawnError || ''), hint);
}

async function interpreterFacts(ctx: AuditContext): Promise<{ sitePackages: string[]; pythonVersion: string }> {
  const code = 'import json,sysconfig,platform; p=sysconfig.get_paths(); print(json.dumps([[p["purelib"],p["platlib"]],platform.python_version()]))';
  const r = await ctx.sandbox.exec({ argv: [venvPython(ctx), '-c', code], cwd: ctx.envDir, timeoutMs: 60_000, network: false });
  if (r.exitCode !== 0) throw new StepFailedError('install', 'other', 'the virtual environment interpreter does not start', tail(r.stderr));
  const [sitePackages, pythonVersion] = JSON.parse(r.stdout) as [string[], string];
  return { sitePackages, pythonVersion };
}

/** What to hand pip: the requirements file when there is one, else the project itself (pyproject.toml). */
async function installArgs(ctx: AuditContext, given: DeclaredResult | undefined): Promise<string[]> {
  if (!(await isFile(path.join(ctx.host.projectDir, 'requirements.txt')))) return ['.'];
  // pip recurses through `-r` includes without end (RecursionError): say what is wrong instead.
  const declared = given ?? (await extractPythonDeclared(ctx.host.projectDir));
  const cycle = declared.skipped.find((s) => s.reason === 'include-cycle');
  if (cycle) {
    throw new StepFailedError('install', 'other', `the requirements files include each other in a cycle (${cycle.detail ?? cycle.raw}); pip cannot install them`, '', 'remove one of the -r lines that close the cycle');
  }
  return ['-r', 'requirements.txt'];
}

/** Files a bare interpreter start opens (site, .pth files and what they import): not evidence of use. */
async function startupFiles(ctx: AuditContext): Promise<Set<string>> {
  const trace = await traceRun(ctx.sandbox, { argv: [venvPython(ctx), '-c', 'pass'], cwd: ctx.projectDir, env: venvEnv(ctx), timeoutMs: 60_000, network: false }, ctx.tracer);
  return trace.files;
}

/** The project's console scripts that the install put in the venv's bin directory. */
async function installedScripts(ctx: AuditContext): Promise<string[]> {
  const bin = ctx.hostPath(path.posix.join(venvDir(ctx), 'bin'));
  const present = await Promise.all((await localProjectScripts(ctx.host.projectDir)).map(async (name) => ((await isFile(path.join(bin, name))) ? name : undefined)));
  return present.filter((n): n is string => n !== undefined);
}

export const pythonEcosystem: EcosystemModule<PythonInstallDetails> = {
  ...pythonFacts,
  repro: pythonRepro,

  extractDeclared: (projectDir) => extractPythonDeclared(projectDir),

  // The manifest is read again only where a marker compares a variable whose value the environment's interpreter
  // gives otherwise than the first reading assumed (most manifests have no marker, or none that differs).
  async declaredInEnvironment(projectDir, ctx, declared) {
    const r = await ctx.sandbox.exec({ argv: ['python3', '-c', MARKER_ENV_SCRIPT], cwd: ctx.envDir, timeoutMs: 60_000, network: false });
    const markerEnv = r.exitCode === 0 ? markerEnvironmentFromJson(r.stdout) : undefined;
    if (!markerEnv) {
      const read = declared ?? (await extractPythonDeclared(projectDir));
      return { ...read, notes: [...read.notes, 'the environment\'s interpreter did not report its marker values: markers were evaluated for CPython 3.11 on Linux'] };
    }
    return declared && agreesWithAssumptions(declared, markerEnv) ? declared : extractPythonDeclared(projectDir, { markerEnv });
  },

  async install(ctx, declared): Promise<InstallResult<PythonInstallDetails>> {
    const started = performance.now();
    await createVenv(ctx);
    const facts = await interpreterFacts(ctx);
    const toHost = (p: string) => ctx.sandbox.toHost(p);
    const before = await installedDistributions(facts.sitePackages, toHost);
    const args = await installArgs(ctx, declared);
    ctx.progress(`pip install ${args.join(' ')}`);
    await pipInstall(ctx, ['--report', pipReportPath(ctx), ...args]);
    const after = await installedDistributions(facts.sitePackages, toHost);
    // `pip install .`, `-e .` or `.` in requirements.txt: the project's own distribution, never its dependency.
    const own = await distributionsFromDirectory(facts.sitePackages, ctx.projectDir, toHost);
    return {
      installed: installedDiff(before, after),
      own: [...own],
      details: { sitePackages: facts.sitePackages, baseline: before, pythonVersion: facts.pythonVersion, startupFiles: await startupFiles(ctx) },
      commands: [
        `python3 -m venv --without-pip ${venvDir(ctx)}, then ensurepip's wheels (pip, setuptools) unpacked into it, as python3 -m venv would install them`,
        `pip --python <venv> install --report <env>/pip-report.json ${args.join(' ')}`,
        'the *.dist-info and *.egg-info metadata of the venv\'s site-packages (before and after)',
      ],
      durationMs: performance.now() - started,
    };
  },

  async defaultRun(ctx): Promise<RunChoice> {
    const entry = await findPythonEntry(ctx.host.projectDir, await installedScripts(ctx));
    if (!entry) {
      throw new NoEntryPointError(
        'no Python entry point found: no single top-level script, no main.py or app.py, no package with __main__.py',
        'pass the command to trace with --run, e.g. --run "python tool.py --demo"',
      );
    }
    const env = venvEnv(ctx);
    if (entry.pythonPath) env.PYTHONPATH = path.posix.join(ctx.projectDir, entry.pythonPath);
    if (entry.script) return { argv: [venvPython(ctx), path.posix.join(venvDir(ctx), 'bin', entry.script)], display: entry.script, reason: entry.reason, env };
    return { argv: [venvPython(ctx), ...entry.args], display: shellCommandLine(['python', ...entry.args]), reason: entry.reason, env };
  },

  userRun(command, ctx): RunChoice {
    return { argv: ['/bin/sh', '-c', command], display: command, reason: '--run', env: venvEnv(ctx) };
  },

  async attribute(files, ctx, install): Promise<AttributionResult> {
    const { sitePackages, startupFiles: startup } = install.details;
    const index = await buildFileOwnerIndex(sitePackages, (p) => ctx.sandbox.toHost(p));
    const traced = new Map<string, TracedDependency>();
    const evidence: Record<string, string[]> = {};
    for (const file of files) {
      if (startup.has(file) || /\.(dist|egg)-info\//.test(file)) continue;
      const owner = index.get(file) ?? index.get(sourceOfBytecode(file) ?? '');
      if (!owner) continue;
      const key = `${owner.name}@${owner.version ?? ''}`;
      const entry = traced.get(key) ?? { name: owner.name, version: owner.version, files: [] };
      entry.files!.push(file);
      traced.set(key, entry);
      const list = (evidence[owner.name] ??= []);
      if (list.length < 3) list.push(file);
    }
    return { traced: [...traced.values()].sort((a, b) => a.name.localeCompare(b.name)), evidence };
  },

  componentFacts: (ctx, install) => pythonComponentFacts(ctx, install.installed),

  staticImports: (ctx) => pythonStaticImports(ctx),

  reportedDetails: ({ startupFiles: _, ...reported }) => reported,

  manifestEditor: pythonManifestEditor,
};
