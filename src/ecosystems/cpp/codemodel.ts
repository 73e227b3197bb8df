/**
 * Reads the CMake File API codemodel (requested before configure with `.cmake/api/v1/query/codemodel-v2`):
 * the project's targets, their artifacts and the files on their link lines.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import { readProjectFile } from '../../core/safe-read.js';

export interface CodemodelTarget {
  name: string;
  type: string;
  /** Artifact paths, absolute (resolved against the build directory). */
  artifacts: string[];
  /** Build directory of the target's CMake directory, relative to the top build directory (`.` for the top). */
  buildSubdir: string;
  /** Defined outside the project's own source tree (a fetched dependency under `_deps/`). */
  external: boolean;
  /** Libraries on the link line, as CMake passes them (full paths, `-lfoo` flags). */
  linkLibraries: string[];
}

export interface Codemodel {
  projectName?: string;
  buildDir: string;
  targets: CodemodelTarget[];
}

interface ReplyIndex {
  reply?: Record<string, { jsonFile?: string } | undefined>;
}
interface CodemodelJson {
  paths: { build: string; source: string };
  configurations: {
    directories: { source: string; build: string }[];
    projects: { name: string }[];
    targets: { name: string; jsonFile: string; directoryIndex: number }[];
  }[];
}
interface TargetJson {
  name: string;
  type: string;
  artifacts?: { path: string }[];
  link?: { commandFragments?: { fragment: string; role: string }[] };
}

/** A reply file, named by the reply itself: it must stay in the reply directory (CMake ran with the project's code). */
async function readJson<T>(replyDir: string, file: string): Promise<T> {
  return JSON.parse(await readProjectFile(replyDir, file, 'utf8')) as T;
}

/** `hostBuildDir` is where envproof reads the reply; `insideBuildDir` is the build directory as the program sees it. */
export async function readCodemodel(hostBuildDir: string, insideBuildDir: string): Promise<Codemodel> {
  const replyDir = path.join(hostBuildDir, '.cmake/api/v1/reply');
  const indexes = (await readdir(replyDir).catch(() => [] as string[])).filter((f) => f.startsWith('index-')).sort();
  const latest = indexes.at(-1);
  if (!latest) throw new EnvproofError('CMake wrote no File API reply', 'CMake 3.14 or newer is needed to find the built program; pass --run');
  const index = await readJson<ReplyIndex>(replyDir, latest);
  const codemodelFile = index.reply?.['codemodel-v2']?.jsonFile;
  if (!codemodelFile) throw new EnvproofError('the CMake File API reply has no codemodel', 'pass the command to trace with --run');
  const codemodel = await readJson<CodemodelJson>(replyDir, codemodelFile);
  const config = codemodel.configurations[0];
  const targets: CodemodelTarget[] = [];
  for (const t of config?.targets ?? []) {
    const json = await readJson<TargetJson>(replyDir, t.jsonFile);
    const dir = config?.directories[t.directoryIndex] ?? { source: '.', build: '.' };
    targets.push({
      name: json.name,
      type: json.type,
      artifacts: (json.artifacts ?? []).map((a) => path.posix.resolve(insideBuildDir, a.path)),
      buildSubdir: dir.build,
      external: path.isAbsolute(dir.source) || dir.source.startsWith('..') || dir.build.startsWith('_deps'),
      linkLibraries: (json.link?.commandFragments ?? []).filter((f) => f.role === 'libraries').map((f) => f.fragment.trim()),
    });
  }
  return { projectName: config?.projects[0]?.name, buildDir: insideBuildDir, targets };
}

/**
 * The program to run when the user names none: the project's own executable target (not one of a fetched
 * dependency's). With several, the one named like the project, else the only one that is not a test.
 */
export function chooseExecutable(model: Codemodel, typedName: (artifact: string) => string = (a) => a): { target: CodemodelTarget; reason: string } {
  const own = model.targets.filter((t) => t.type === 'EXECUTABLE' && t.artifacts.length > 0 && !t.external);
  const single = own.length === 1 ? own[0] : undefined;
  if (single) return { target: single, reason: `the CMake executable target "${single.name}" (File API codemodel)` };
  const named = own.find((t) => t.name === model.projectName);
  if (named) return { target: named, reason: `the CMake executable target named like the project "${named.name}"` };
  const nonTests = own.filter((t) => !/test/i.test(t.name));
  const only = nonTests.length === 1 ? nonTests[0] : undefined;
  if (only) return { target: only, reason: `the only CMake executable target that is not a test, "${only.name}"` };
  const names = own.map((t) => t.name).join(', ');
  // Each executable's directory is on the PATH of --run, so the name a user types is the program's file name.
  const programs = own.map((t) => typedName(t.artifacts[0]!));
  throw new EnvproofError(
    own.length === 0 ? 'the CMake project defines no executable target' : `the CMake project defines several executables (${names}); envproof cannot tell which one to run`,
    own.length === 0
      ? 'pass the command to trace with --run (ENVPROOF_BUILD_DIR is the build directory)'
      : `pass the command to trace with --run, e.g. --run "${programs[0]}" (built: ${programs.join(', ')}; each is on the PATH of --run)`,
  );
}
