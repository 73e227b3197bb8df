/**
 * What CMake found or fetched, recorded by a CMake dependency provider (CMake ≥ 3.24) that envproof
 * injects with CMAKE_PROJECT_TOP_LEVEL_INCLUDES. Every find_package() and FetchContent_MakeAvailable()
 * anywhere in the configure — including those of fetched projects and of package config files
 * (find_dependency) — passes through it. It forwards to CMake's own implementation and only writes one
 * tab-separated line per request and per find_package result to ENVPROOF_PROVIDER_LOG; and, once the top
 * directory is processed, one line per target with what it links (how a header is credited to the package the
 * compiling target uses, when several packages could have supplied it).
 */

/**
 * The CMake script, with `@{` standing for CMake's `${` (a template literal cannot hold `${` unescaped).
 * Macro parameters are substituted textually, so nested provider calls cannot clobber them.
 */
export const PROVIDER_SCRIPT = String.raw`# Written by envproof: records dependencies, changes nothing.
if(CMAKE_VERSION VERSION_LESS 3.24)
  return()  # no dependency providers before CMake 3.24: D2 then stays empty
endif()
# For a request, ARGV3 is the file defining the function that made the call (empty at file level).
function(_envproof_record event method name)
  set(_line "@{event}\t@{method}\t@{name}")
  if(event STREQUAL "result")
    string(TOUPPER "@{name}" _up)
    set(_version "")
    foreach(_v @{name}_VERSION @{_up}_VERSION_STRING @{_up}_VERSION @{name}_VERSION_STRING)
      if(NOT _version AND DEFINED @{_v})
        set(_version "@{@{_v}}")
      endif()
    endforeach()
    set(_files "")
    foreach(_v @{name}_CONFIG @{name}_LIBRARIES @{_up}_LIBRARIES @{name}_LIBRARY @{_up}_LIBRARY)
      if(DEFINED @{_v})
        list(APPEND _files @{@{_v}})
      endif()
    endforeach()
    set(_includes "")
    foreach(_v @{name}_INCLUDE_DIRS @{_up}_INCLUDE_DIRS @{name}_INCLUDE_DIR @{_up}_INCLUDE_DIR)
      if(DEFINED @{_v})
        list(APPEND _includes @{@{_v}})
      endif()
    endforeach()
    set(_new_targets "")
    get_property(_targets DIRECTORY PROPERTY IMPORTED_TARGETS)
    foreach(_t IN LISTS _targets)
      if(NOT _t IN_LIST _envproof_before_@{name})
        list(APPEND _new_targets @{_t})
        foreach(_p IMPORTED_LOCATION IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NOCONFIG IMPORTED_LOCATION_DEBUG)
          get_target_property(_loc @{_t} @{_p})
          if(_loc)
            list(APPEND _files @{_loc})
          endif()
        endforeach()
        get_target_property(_inc @{_t} INTERFACE_INCLUDE_DIRECTORIES)
        if(_inc)
          list(APPEND _includes @{_inc})
        endif()
        get_target_property(_libs @{_t} INTERFACE_LINK_LIBRARIES)
        foreach(_l IN LISTS _libs)
          if(IS_ABSOLUTE "@{_l}")
            list(APPEND _files @{_l})
          endif()
        endforeach()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES _files)
    list(REMOVE_DUPLICATES _includes)
    string(APPEND _line "\t@{@{name}_FOUND}\t@{_version}\t@{_files}\t@{_includes}\t@{_new_targets}")
  else()
    # The caller: the function's defining file when called from a function (FetchContent's own
    # find_package(Git)), else the file being processed.
    set(_caller "@{CMAKE_CURRENT_LIST_FILE}")
    list(POP_FRONT ARGN _function_file)
    if(_function_file)
      set(_caller "@{_function_file}")
    endif()
    string(APPEND _line "\t@{_caller}\t@{ARGN}")
  endif()
  file(APPEND "@{ENVPROOF_PROVIDER_LOG}" "@{_line}\n")
endfunction()

# Every target of the build (the project's and fetched ones) with the libraries it links.
function(_envproof_record_targets)
  set(_dirs "@{CMAKE_SOURCE_DIR}")
  while(_dirs)
    list(POP_FRONT _dirs _dir)
    get_property(_subdirs DIRECTORY "@{_dir}" PROPERTY SUBDIRECTORIES)
    list(APPEND _dirs @{_subdirs})
    get_property(_targets DIRECTORY "@{_dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(_t IN LISTS _targets)
      get_target_property(_type @{_t} TYPE)
      set(_links "")
      foreach(_p LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
        if(NOT (_type STREQUAL "INTERFACE_LIBRARY" AND _p STREQUAL "LINK_LIBRARIES"))
          get_target_property(_l @{_t} @{_p})
          if(_l)
            list(APPEND _links @{_l})
          endif()
        endif()
      endforeach()
      file(APPEND "@{ENVPROOF_PROVIDER_LOG}" "target\t@{_t}\t@{_type}\t@{_links}\n")
    endforeach()
  endwhile()
endfunction()
cmake_language(DEFER CALL _envproof_record_targets)

macro(envproof_provide_dependency method name)
  if("@{method}" STREQUAL "FIND_PACKAGE")
    # A find module may call find_package() for its own name again: let CMake handle that inner call.
    get_property(_envproof_active GLOBAL PROPERTY "ENVPROOF_ACTIVE_@{name}")
    if(NOT _envproof_active)
      _envproof_record(request FIND_PACKAGE @{name} "@{CMAKE_CURRENT_FUNCTION_LIST_FILE}" @{ARGN})
      set_property(GLOBAL PROPERTY "ENVPROOF_ACTIVE_@{name}" 1)
      get_property(_envproof_before_@{name} DIRECTORY PROPERTY IMPORTED_TARGETS)
      find_package(@{name} @{ARGN} BYPASS_PROVIDER)
      set_property(GLOBAL PROPERTY "ENVPROOF_ACTIVE_@{name}" "")
      _envproof_record(result FIND_PACKAGE @{name})
    endif()
  else()
    _envproof_record(request @{method} @{name} "@{CMAKE_CURRENT_FUNCTION_LIST_FILE}" @{ARGN})
  endif()
endmacro()

cmake_language(SET_DEPENDENCY_PROVIDER envproof_provide_dependency
  SUPPORTED_METHODS FIND_PACKAGE FETCHCONTENT_MAKEAVAILABLE_SERIAL)
`.replace(/@\{/g, '${');

export interface FindPackageRecord {
  name: string;
  args: string[];
  /** The CMake file that called find_package(). */
  caller: string;
  /** Undefined when configure stopped inside this find_package (a REQUIRED package was not found). */
  found?: boolean;
  version?: string;
  /** Config file, libraries and imported locations CMake resolved for the package. */
  files: string[];
  /** Include directories the package gave (its variables, its imported targets' interface). */
  includeDirs: string[];
  /** Imported targets the find_package call created (`ZLIB::ZLIB`). */
  targets: string[];
}

/** A target of the build and the libraries it links (LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES, as written). */
export interface TargetRecord {
  name: string;
  type: string;
  links: string[];
}

export interface FetchRecord {
  name: string;
  args: string[];
  caller: string;
}

export interface ProviderLog {
  findPackages: FindPackageRecord[];
  fetches: FetchRecord[];
  /** Empty when configure stopped before the end of the top directory. */
  targets: TargetRecord[];
}

function cmakeList(value: string | undefined): string[] {
  return (value ?? '').split(';').filter((v) => v !== '');
}

/** CMake's truth test for the values find_package sets (`TRUE`, `1`, `ON`, `YES`, `Y`, non-zero numbers). */
function cmakeTrue(value: string): boolean {
  const v = value.trim().toUpperCase();
  if (['', '0', 'OFF', 'NO', 'FALSE', 'N', 'IGNORE', 'NOTFOUND'].includes(v) || v.endsWith('-NOTFOUND')) return false;
  return true;
}

/** Parses the log the provider wrote. Requests are matched to results innermost first (they nest). */
export function parseProviderLog(text: string): ProviderLog {
  const log: ProviderLog = { findPackages: [], fetches: [], targets: [] };
  const open: FindPackageRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [event, method, name = '', ...rest] = line.split('\t');
    if (event === 'request' && method === 'FIND_PACKAGE') {
      const rec: FindPackageRecord = { name, caller: rest[0] ?? '', args: cmakeList(rest[1]), files: [], includeDirs: [], targets: [] };
      log.findPackages.push(rec);
      open.push(rec);
    } else if (event === 'request' && method === 'FETCHCONTENT_MAKEAVAILABLE_SERIAL') {
      log.fetches.push({ name, caller: rest[0] ?? '', args: cmakeList(rest[1]) });
    } else if (event === 'result') {
      const idx = open.map((r) => r.name).lastIndexOf(name);
      const rec = idx >= 0 ? open.splice(idx, 1)[0] : undefined;
      if (!rec) continue;
      const [found = '', version = '', files = '', includeDirs = '', targets = ''] = rest;
      rec.found = cmakeTrue(found);
      rec.version = version || undefined;
      rec.files = cmakeList(files);
      rec.includeDirs = cmakeList(includeDirs);
      rec.targets = cmakeList(targets);
    } else if (event === 'target') {
      log.targets.push({ name: method ?? '', type: name, links: cmakeList(rest[0]) });
    }
  }
  return log;
}
