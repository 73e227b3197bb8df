/**
 * D1 for CMake projects: the top-level CMakeLists.txt plus the in-tree files it pulls in with literal
 * add_subdirectory()/include() arguments, include(<Module>) found the way CMake finds it: the CMAKE_MODULE_PATH
 * entries in order, then CMake's own modules (not read: they belong to CMake, not to the project). Declared
 * names are the CMake names as written, normalised (see names.ts); `id` carries the declaration in canonical
 * form. A declaration in a branch that option() defaults turn off is reported as conditional, outside D1.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import { uniqueDependencies } from '../../core/names.js';
import type { DeclaredResult, Dependency, SkippedEntry } from '../../core/types.js';
import type { OptionDefaults } from './conditions.js';
import { declarationsOf, describeDeclaration, type CmakeDeclaration } from './declarations.js';
import { cmakeRoot } from './find-modules.js';
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
  const realRoot = await realpath(root);
  const visiting = new Set<string>();
  const options: OptionDefaults = new Map();
  let cmakeModules: Promise<string | undefined> | undefined;
  const isCmakeModule = async (name: string) => {
    cmakeModules ??= cmakeRoot().then((r) => (r ? path.join(r, 'Modules') : undefined));
    const dir = await cmakeModules;
    return dir !== undefined && (await isFile(path.join(dir, `${name}.cmake`)));
  };

  // `sourceDir` is CMAKE_CURRENT_SOURCE_DIR: include() paths resolve against it, not against the included file.
  // An included file shares the includer's variables; a subdirectory gets a copy (a new scope).
  const visit = async (file: string, sourceDir: string, vars: Variables, condition?: string): Promise<void> => {
    const shown = path.relative(root, file) || CMAKE_MANIFEST;
    visiting.add(file);
    result.files.push(shown);
    const directories = {
      CMAKE_CURRENT_SOURCE_DIR: sourceDir,
      CMAKE_CURRENT_LIST_DIR: path.dirname(file),
      CMAKE_SOURCE_DIR: root,
      PROJECT_SOURCE_DIR: root,
      CMAKE_HOME_DIRECTORY: root,
    };
    const found = declarationsOf(parseCmake(await readProjectFile(root, file, 'utf8'), shown), shown, vars, { options, directories, condition });
    result.declarations.push(...found.declarations);
    result.linkItems.push(...found.linkItems);
    result.skipped.push(...found.skipped);
    found.ownTargets.forEach((t) => result.ownTargets.add(t));
    found.madeAvailable.forEach((n) => result.madeAvailable.add(n.toLowerCase()));
    const modules = [];
    for (const m of found.modules) {
      const source = `${shown}:${m.line}`;
      const raw = `include(${m.name})`;
      const unresolved = m.searchPath.filter((dir) => dir.includes('${'));
      const candidates = m.searchPath.filter((dir) => !dir.includes('${')).map((dir) => path.resolve(sourceDir, dir, `${m.name}.cmake`));
      let at: string | undefined;
      for (const c of candidates) if (!at && (await isFile(c))) at = c;
      if (at) modules.push({ raw, arg: m.name, line: m.line, file: at, sourceDir, vars, condition: m.condition });
      else if (m.name.includes('${')) result.skipped.push({ raw, reason: 'unresolved-property', source, detail: 'the module name is a variable reference' });
      else if (unresolved.length) result.skipped.push({ raw, reason: 'unresolved-property', source, detail: `not found on CMAKE_MODULE_PATH, whose entries ${unresolved.join(', ')} are variable references` });
      else if (!(await isCmakeModule(m.name))) {
        const searched = m.searchPath.length ? `CMAKE_MODULE_PATH (${m.searchPath.map((d) => path.relative(root, path.resolve(sourceDir, d)) || '.').join(', ')})` : 'an empty CMAKE_MODULE_PATH';
        result.skipped.push({ raw, reason: 'include-missing', source, detail: `not a file on ${searched} nor one of CMake's modules` });
      }
    }
    const children = [
      ...found.subdirectories.map((s) => ({ raw: `add_subdirectory(${s.dir})`, arg: s.dir, line: s.line, file: path.join(sourceDir, s.dir, CMAKE_MANIFEST), sourceDir: path.join(sourceDir, s.dir), vars: new Map(vars), condition: s.condition })),
      ...found.includes.map((s) => ({ raw: `include(${s.file})`, arg: s.file, line: s.line, file: path.resolve(sourceDir, s.file), sourceDir, vars, condition: s.condition })),
      ...modules,
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
      } else if (!(await realpath(child.file)).startsWith(realRoot + path.sep)) {
        result.skipped.push({ raw: child.raw, reason: 'local-path', source, detail: 'a symlink out of the project, not followed' });
      } else {
        await visit(child.file, child.sourceDir, child.vars, child.condition);
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
  const conditional = project.declarations.filter((d) => d.condition);
  for (const d of conditional) notes.push(`${describeDeclaration(d)} at ${d.file}:${d.line} is under ${d.condition}, which option() defaults turn off: conditional, not in D1`);
  const made = project.declarations.filter((d) => !d.condition);
  return {
    manifest: CMAKE_MANIFEST,
    declared: uniqueDependencies(made.filter((d) => !isBuildToolDeclaration(d)).map(toDependency)),
    buildTools: uniqueDependencies(made.filter(isBuildToolDeclaration).map(toDependency)),
    other: { target_link_libraries: linked, ...(conditional.length ? { conditional: uniqueDependencies(conditional.map(toDependency)) } : {}) },
    skipped: project.skipped,
    notes,
  };
}
