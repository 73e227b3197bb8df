/**
 * D1 for CMake projects: the top-level CMakeLists.txt plus the in-tree files it pulls in with literal
 * add_subdirectory()/include() arguments. Declared names are the CMake names as written, normalised
 * (see names.ts); `id` carries the declaration in canonical form.
 */
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import { uniqueDependencies } from '../../core/names.js';
import type { DeclaredResult, Dependency, SkippedEntry } from '../../core/types.js';
import { declarationsOf, describeDeclaration, type CmakeDeclaration } from './declarations.js';
import { parseCmake } from './lexer.js';
import { isBuildTool } from './build-tools.js';
import { cmakeName } from './names.js';
import type { Variables } from './variables.js';
import { isFile } from '../../core/fs.js';
import { readProjectFile } from '../../core/safe-read.js';

export const CMAKE_MANIFEST = 'CMakeLists.txt';

export interface CmakeProjectDeclarations {
  declarations: CmakeDeclaration[];
  linkItems: Dependency[];
  ownTargets: Set<string>;
  madeAvailable: Set<string>;
  skipped: SkippedEntry[];
  files: string[];
}

/** Parses the project's CMake files, following literal in-tree add_subdirectory()/include(). */
export async function readCmakeProject(projectDir: string): Promise<CmakeProjectDeclarations> {
  const root = path.resolve(projectDir);
  const top = path.join(root, CMAKE_MANIFEST);
  if (!(await isFile(top))) {
    throw new EnvproofError(`no ${CMAKE_MANIFEST} in ${projectDir}`, 'point envproof at the directory that holds the top-level CMakeLists.txt');
  }
  const result: CmakeProjectDeclarations = {
    declarations: [],
    linkItems: [],
    ownTargets: new Set(),
    madeAvailable: new Set(),
    skipped: [],
    files: [],
  };
  const visiting = new Set<string>();

  // `sourceDir` is CMAKE_CURRENT_SOURCE_DIR: include() paths resolve against it, not against the included file.
  // An included file shares the includer's variables; a subdirectory gets a copy (a new scope).
  const visit = async (file: string, sourceDir: string, vars: Variables): Promise<void> => {
    const shown = path.relative(root, file) || CMAKE_MANIFEST;
    visiting.add(file);
    result.files.push(shown);
    const found = declarationsOf(parseCmake(await readProjectFile(root, file, 'utf8'), shown), shown, vars);
    result.declarations.push(...found.declarations);
    result.linkItems.push(...found.linkItems);
    result.skipped.push(...found.skipped);
    found.ownTargets.forEach((t) => result.ownTargets.add(t));
    found.madeAvailable.forEach((n) => result.madeAvailable.add(n.toLowerCase()));
    const children = [
      ...found.subdirectories.map((s) => ({ raw: `add_subdirectory(${s.dir})`, arg: s.dir, line: s.line, file: path.join(sourceDir, s.dir, CMAKE_MANIFEST), sourceDir: path.join(sourceDir, s.dir), vars: new Map(vars) })),
      ...found.includes.map((s) => ({ raw: `include(${s.file})`, arg: s.file, line: s.line, file: path.resolve(sourceDir, s.file), sourceDir, vars })),
    ];
    for (const child of children) {
      const source = `${shown}:${child.line}`;
      if (child.arg.includes('${')) {
        result.skipped.push({ raw: child.raw, reason: 'unresolved-property', source, detail: 'path is a variable reference' });
      } else if (!child.file.startsWith(root + path.sep)) {
        result.skipped.push({ raw: child.raw, reason: 'local-path', source, detail: 'outside the project' });
      } else if (visiting.has(child.file)) {
        result.skipped.push({ raw: child.raw, reason: 'include-cycle', source });
      } else if (!(await isFile(child.file))) {
        result.skipped.push({ raw: child.raw, reason: 'include-missing', source });
      } else {
        await visit(child.file, child.sourceDir, child.vars);
      }
    }
  };
  await visit(top, root, new Map());
  return result;
}

function toDependency(d: CmakeDeclaration): Dependency {
  return { name: cmakeName(d.rawName), version: d.version, id: describeDeclaration(d), source: `${d.file}:${d.line}` };
}

function isBuildToolDeclaration(d: CmakeDeclaration): boolean {
  return d.kind === 'find_package' && isBuildTool(d.rawName, [...d.components, ...d.optionalComponents]);
}

/**
 * The EcosystemModule.extractDeclared of C++: every kind of declaration counts toward D1, except find_package of
 * a build tool (PkgConfig, Git, Doxygen, ...: build-tools.ts), which is reported apart.
 */
export async function extractCmakeDeclared(projectDir: string): Promise<DeclaredResult> {
  const project = await readCmakeProject(projectDir);
  const notes: string[] = [];
  const fetchNames = project.declarations.filter((d) => d.kind === 'fetchcontent').map((d) => d.rawName.toLowerCase());
  for (const name of fetchNames) {
    if (!project.madeAvailable.has(name)) notes.push(`FetchContent_Declare(${name}) is never made available or populated in the files read`);
  }
  const linked = project.linkItems.filter((item) => !project.ownTargets.has(item.id ?? ''));
  if (project.files.length > 1) notes.push(`read ${project.files.join(', ')}`);
  return {
    manifest: CMAKE_MANIFEST,
    declared: uniqueDependencies(project.declarations.filter((d) => !isBuildToolDeclaration(d)).map(toDependency)),
    buildTools: uniqueDependencies(project.declarations.filter(isBuildToolDeclaration).map(toDependency)),
    other: { target_link_libraries: linked },
    skipped: project.skipped,
    notes,
  };
}
