/**
 * From parsed CMake commands to declarations (pure): find_package, FetchContent_Declare (and the legacy
 * self-contained FetchContent_Populate), pkg_check_modules / pkg_search_module, ExternalProject_Add.
 * target_link_libraries items are collected as evidence, not declarations. add_subdirectory/include
 * targets are returned so the caller can follow them: include(<Module>) with the CMAKE_MODULE_PATH in force
 * where it is written. A declaration in an if() branch that a configure with option() defaults does not take
 * carries that branch as its `condition` (conditions.ts).
 */
import type { Dependency, SkippedEntry } from '../../core/types.js';
import type { CmakeArgument, CommandInvocation } from './lexer.js';
import { BranchTracker, recordOption, type OptionDefaults } from './conditions.js';
import { cmakeName } from './names.js';
import { evaluate, type Variables } from './variables.js';

export type DeclarationKind = 'find_package' | 'fetchcontent' | 'pkg-config' | 'external_project';

export interface CmakeDeclaration {
  kind: DeclarationKind;
  /** The command as written (`find_package`, `FetchContent_Declare`, `pkg_search_module`, ...). */
  command: string;
  /** The name as written. */
  rawName: string;
  version?: string;
  components: string[];
  optionalComponents: string[];
  required: boolean;
  quiet: boolean;
  /** find_package(... EXACT): only that version is accepted. */
  exact?: boolean;
  /** Where the content comes from (FetchContent / ExternalProject), as written. */
  origin?: string;
  /** pkg_check_modules: the variable prefix its results are stored under. */
  prefix?: string;
  file: string;
  line: number;
  /** The if() branch, not taken with option() defaults, that the declaration is in (`if(REDIS_BACKEND)`). */
  condition?: string;
}

/** Where a child file is pulled in, and the branch not taken by default it is pulled in under, if any. */
interface Inclusion {
  line: number;
  condition?: string;
}

/** What a file is read with beyond its variables: option() defaults (shared by all files) and its directories. */
export interface ReadContext {
  options: OptionDefaults;
  /** CMAKE_CURRENT_SOURCE_DIR, CMAKE_CURRENT_LIST_DIR, CMAKE_SOURCE_DIR, ... as absolute paths. */
  directories: Record<string, string>;
  /** The branch not taken by default that this whole file is read under (from its includer). */
  condition?: string;
}

export interface FileDeclarations {
  declarations: CmakeDeclaration[];
  linkItems: Dependency[];
  skipped: SkippedEntry[];
  /** Literal add_subdirectory() arguments, relative to the file's directory. */
  subdirectories: (Inclusion & { dir: string })[];
  /** Literal include() arguments that name a file rather than a CMake module. */
  includes: (Inclusion & { file: string })[];
  /** include(<Module>): the module name and the CMAKE_MODULE_PATH entries in force at that line. */
  modules: (Inclusion & { name: string; searchPath: string[] })[];
  /** Targets the project defines itself (add_library/add_executable), to tell them from external ones. */
  ownTargets: string[];
  /** Names passed to FetchContent_MakeAvailable / FetchContent_Populate. */
  madeAvailable: string[];
}

const FIND_PACKAGE_KEYWORDS = new Set([
  'EXACT', 'QUIET', 'MODULE', 'CONFIG', 'NO_MODULE', 'REQUIRED', 'COMPONENTS', 'OPTIONAL_COMPONENTS',
  'NO_POLICY_SCOPE', 'GLOBAL', 'BYPASS_PROVIDER', 'NAMES', 'CONFIGS', 'HINTS', 'PATHS', 'PATH_SUFFIXES',
  'REGISTRY_VIEW', 'NO_DEFAULT_PATH', 'NO_PACKAGE_ROOT_PATH', 'NO_CMAKE_PATH', 'NO_CMAKE_ENVIRONMENT_PATH',
  'NO_SYSTEM_ENVIRONMENT_PATH', 'NO_CMAKE_PACKAGE_REGISTRY', 'NO_CMAKE_BUILDS_PATH',
  'NO_CMAKE_SYSTEM_PATH', 'NO_CMAKE_INSTALL_PREFIX', 'NO_CMAKE_SYSTEM_PACKAGE_REGISTRY',
  'CMAKE_FIND_ROOT_PATH_BOTH', 'ONLY_CMAKE_FIND_ROOT_PATH', 'NO_CMAKE_FIND_ROOT_PATH',
]);

const PKG_CONFIG_OPTIONS = new Set([
  'REQUIRED', 'QUIET', 'NO_CMAKE_PATH', 'NO_CMAKE_ENVIRONMENT_PATH', 'IMPORTED_TARGET', 'GLOBAL',
]);

const LINK_KEYWORDS = new Set([
  'PRIVATE', 'PUBLIC', 'INTERFACE', 'LINK_PRIVATE', 'LINK_PUBLIC', 'LINK_INTERFACE_LIBRARIES',
  'debug', 'optimized', 'general',
]);

/** A version argument of find_package: `1.2`, `1.2.3.4`, or a range `1.2...<2.0`. */
const VERSION_ARG = /^\d+(\.\d+)*(\.\.\.<?\d+(\.\d+)*)?$/;

function valueAfter(values: readonly string[], keyword: string): string | undefined {
  const i = values.indexOf(keyword);
  return i >= 0 ? values[i + 1] : undefined;
}

/**
 * A version from an archive URL: in its file name (`fmt-10.2.1.zip`, `v1.2.3.tar.gz`) or, failing that,
 * a path segment that is one (`.../releases/download/v3.11.2/json.tar.xz`).
 */
function versionFromUrl(url: string): string | undefined {
  const segments = url.replace(/[?#].*$/, '').split('/').filter(Boolean);
  const file = segments.at(-1) ?? '';
  const inName = /(?:^|[-_v])(\d+(?:\.\d+)+)(?:\.tar\.\w+|\.tgz|\.zip|\.tar)?$/.exec(file)?.[1];
  if (inName) return inName;
  return segments
    .slice(0, -1)
    .map((seg) => /^v?(\d+(?:\.\d+)+)$/.exec(seg)?.[1])
    .filter((v): v is string => v !== undefined)
    .at(-1);
}

/** Version and origin of content described by FetchContent/ExternalProject options (argument values). */
export function contentSource(args: readonly string[]): { version?: string; origin?: string } {
  const tag = valueAfter(args, 'GIT_TAG') ?? valueAfter(args, 'SVN_REVISION') ?? valueAfter(args, 'HG_TAG');
  const url = valueAfter(args, 'URL');
  const repo = valueAfter(args, 'GIT_REPOSITORY') ?? valueAfter(args, 'SVN_REPOSITORY') ?? valueAfter(args, 'HG_REPOSITORY');
  const sourceDir = valueAfter(args, 'SOURCE_DIR');
  return { version: tag ?? (url ? versionFromUrl(url) : undefined), origin: repo ?? url ?? sourceDir };
}

function hasContentOptions(args: readonly CmakeArgument[]): boolean {
  return args.some((a) => /^(URL|GIT_REPOSITORY|SVN_REPOSITORY|HG_REPOSITORY|DOWNLOAD_COMMAND)$/.test(a.value));
}

function values(cmd: CommandInvocation): string[] {
  return cmd.args.map((a) => a.value);
}

type NameCheck = { ok: true } | { ok: false; reason: SkippedEntry['reason']; detail: string };

function checkName(raw: string): NameCheck {
  if (raw.includes('$<')) return { ok: false, reason: 'unsupported-syntax', detail: 'generator expression' };
  if (raw.includes('${') || raw.includes('$ENV{') || raw.includes('$CACHE{')) {
    return { ok: false, reason: 'unresolved-property', detail: 'the name is a variable reference, which is not evaluated' };
  }
  if (!/^[A-Za-z0-9_.+-]+$/.test(raw)) return { ok: false, reason: 'invalid-name', detail: 'not a package name' };
  return { ok: true };
}

/** The COMPONENTS (also those after REQUIRED) and OPTIONAL_COMPONENTS of find_package arguments after the name. */
export function findPackageComponents(values: readonly string[]): { components: string[]; optionalComponents: string[] } {
  const components: string[] = [];
  const optionalComponents: string[] = [];
  let collecting: string[] | undefined;
  for (const v of values) {
    if (v === 'COMPONENTS' || v === 'REQUIRED') collecting = components;
    else if (v === 'OPTIONAL_COMPONENTS') collecting = optionalComponents;
    else if (FIND_PACKAGE_KEYWORDS.has(v)) collecting = undefined;
    else if (collecting) collecting.push(v);
  }
  return { components, optionalComponents };
}

function findPackage(cmd: CommandInvocation, file: string): Omit<CmakeDeclaration, 'rawName'> & { rawName?: string } {
  const [nameArg, ...rest] = cmd.args;
  const values = rest.map((a) => a.value);
  const { components, optionalComponents } = findPackageComponents(values);
  const version = values[0] !== undefined && VERSION_ARG.test(values[0]) ? values[0] : undefined;
  return {
    kind: 'find_package',
    command: cmd.rawName,
    rawName: nameArg?.value,
    version,
    components,
    optionalComponents,
    required: values.includes('REQUIRED'),
    quiet: values.includes('QUIET'),
    ...(values.includes('EXACT') ? { exact: true } : {}),
    file,
    line: cmd.line,
  };
}

/** pkg_check_modules(<prefix> [options] <module spec>...): one declaration per module spec (`glib-2.0>=2.50`). */
function pkgConfigModules(cmd: CommandInvocation, file: string): CmakeDeclaration[] {
  const values = cmd.args.slice(1).map((a) => a.value);
  const required = values.includes('REQUIRED');
  const quiet = values.includes('QUIET');
  return values
    .filter((v) => !PKG_CONFIG_OPTIONS.has(v))
    .map((spec) => {
      const m = /^([^<>=]+)(.*)$/.exec(spec);
      const rawName = (m?.[1] ?? spec).trim();
      const constraint = m?.[2]?.trim();
      return {
        kind: 'pkg-config' as const,
        command: cmd.rawName,
        rawName,
        version: constraint ? constraint : undefined,
        components: [],
        optionalComponents: [],
        required,
        quiet,
        prefix: cmd.args[0]?.value,
        file,
        line: cmd.line,
      };
    });
}

/**
 * Items of target_link_libraries. A variable reference the reader could not expand (`${ZLIB_LIBRARIES}`, set by a
 * find module at configure time) or a generator expression is kept as written, never turned into a name.
 */
function linkItems(cmd: CommandInvocation, file: string): Dependency[] {
  return cmd.args
    .slice(1)
    .map((a) => a.value)
    .filter((v) => !LINK_KEYWORDS.has(v))
    .map((v) => ({ name: /\$\{|\$<|\$ENV\{/.test(v) ? v : cmakeName(v), id: v, source: `${file}:${cmd.line} target_link_libraries` }));
}

const MODULE_PATH = 'CMAKE_MODULE_PATH';

/**
 * set()/list() of CMAKE_MODULE_PATH with the directory variables expanded, as CMake expands them where the
 * command is written; elsewhere they stay unexpanded, so that declarations never carry this machine's paths.
 */
function withDirectories(cmd: CommandInvocation, directories: Record<string, string>): CommandInvocation {
  const values = cmd.args.map((a) => a.value);
  const target = cmd.name === 'set' ? values[0] : cmd.name === 'list' ? values[1] : undefined;
  if (target !== MODULE_PATH) return cmd;
  const expand = (v: string) => v.replace(/\$\{(\w+)\}/g, (ref, name: string) => directories[name] ?? ref);
  return { ...cmd, args: cmd.args.map((a) => (a.kind === 'bracket' ? a : { ...a, value: expand(a.value) })) };
}

/**
 * Extracts what one parsed file declares. `file` is the path shown in sources (relative to the project);
 * `vars` carries literal variables in (from the including file) and out (see variables.ts).
 */
export function declarationsOf(
  commands: readonly CommandInvocation[],
  file: string,
  vars: Variables = new Map(),
  context: ReadContext = { options: new Map(), directories: {} },
): FileDeclarations {
  const out: FileDeclarations = {
    declarations: [],
    linkItems: [],
    skipped: [],
    subdirectories: [],
    includes: [],
    modules: [],
    ownTargets: [],
    madeAvailable: [],
  };
  const branches = new BranchTracker(context.options);
  const condition = () => {
    const off = branches.offBranch() ?? context.condition;
    return off ? { condition: off } : {};
  };
  const content = (cmd: CommandInvocation, kind: DeclarationKind) => ({
    kind,
    command: cmd.rawName,
    rawName: cmd.args[0]?.value,
    ...contentSource(values(cmd)),
    components: [],
    optionalComponents: [],
    required: true,
    quiet: false,
    file,
    line: cmd.line,
  });
  const add = (cmd: CommandInvocation, d: Omit<CmakeDeclaration, 'rawName'> & { rawName?: string }) => {
    const raw = d.rawName ?? '';
    const check = checkName(raw);
    if (check.ok) out.declarations.push({ ...d, rawName: raw, ...condition() });
    else out.skipped.push({ raw: `${cmd.rawName}(${raw})`, reason: check.reason, source: `${file}:${cmd.line}`, detail: check.detail });
  };
  for (const written of commands) {
    branches.visit(written);
    const cmd = evaluate(withDirectories(written, context.directories), vars);
    const first = cmd.args[0]?.value;
    switch (cmd.name) {
      case 'option':
        recordOption(cmd, context.options);
        break;
      case 'find_package':
        add(cmd, findPackage(cmd, file));
        break;
      case 'fetchcontent_declare':
        add(cmd, content(cmd, 'fetchcontent'));
        break;
      case 'fetchcontent_populate':
        // The legacy signature with its own download options is a declaration; the short one refers to a declare.
        if (hasContentOptions(cmd.args)) {
          add(cmd, content(cmd, 'fetchcontent'));
        }
        if (first) out.madeAvailable.push(first);
        break;
      case 'fetchcontent_makeavailable':
        out.madeAvailable.push(...cmd.args.map((a) => a.value));
        break;
      case 'externalproject_add':
        add(cmd, content(cmd, 'external_project'));
        break;
      case 'pkg_check_modules':
      case 'pkg_search_module':
        for (const d of pkgConfigModules(cmd, file)) add(cmd, d);
        break;
      case 'target_link_libraries':
        out.linkItems.push(...linkItems(cmd, file));
        break;
      case 'add_library':
      case 'add_executable':
        if (first) out.ownTargets.push(first);
        break;
      case 'add_subdirectory':
        if (first) out.subdirectories.push({ dir: first, line: cmd.line, ...condition() });
        break;
      case 'include':
        // include(cmake/deps.cmake) reads a file; include(Dependencies) a module, searched for on CMAKE_MODULE_PATH.
        if (first && (first.includes('/') || first.endsWith('.cmake'))) out.includes.push({ file: first, line: cmd.line, ...condition() });
        else if (first) out.modules.push({ name: first, line: cmd.line, searchPath: (vars.get(MODULE_PATH) ?? '').split(';').filter(Boolean), ...condition() });
        break;
      default:
        break;
    }
  }
  return out;
}

/** The declaration in one canonical line: `find_package(Boost 1.80 REQUIRED COMPONENTS system)`, `FetchContent_Declare(fmt <url>)`. */
export function describeDeclaration(d: CmakeDeclaration): string {
  const parts = [d.rawName];
  if (d.kind === 'find_package') {
    if (d.version) parts.push(d.version);
    if (d.exact) parts.push('EXACT');
    if (d.required) parts.push('REQUIRED');
    if (d.quiet) parts.push('QUIET');
    if (d.components.length) parts.push('COMPONENTS', ...d.components);
    if (d.optionalComponents.length) parts.push('OPTIONAL_COMPONENTS', ...d.optionalComponents);
  } else if (d.kind === 'pkg-config') {
    parts.unshift(d.prefix ?? '');
    if (d.version) parts[1] += d.version;
  } else if (d.origin) {
    parts.push(d.origin);
  }
  return `${d.command}(${parts.join(' ')})`;
}
