/**
 * find_package() names that look for programs the build runs, not for libraries the program uses: they are
 * declared and found, but they are build tools, never library dependencies. Decided per name (docs/cpp.md has the
 * table and why); a name not listed here is a library. `Threads` is a library (libpthread): it is not listed.
 */
import { cmakeName } from './names.js';

/** Normalised CMake name → what it looks for. */
export const BUILD_TOOLS: Readonly<Record<string, string>> = {
  pkgconfig: 'the pkg-config program (FindPkgConfig)',
  git: 'the git program (FindGit)',
  subversion: 'the svn program (FindSubversion)',
  hg: 'the Mercurial program (FindHg)',
  cvs: 'the cvs program (FindCVS)',
  doxygen: 'the doxygen program and its helpers dot, mscgen, dia (FindDoxygen)',
  sphinx: 'the sphinx-build program (a common project find module)',
  latex: 'the LaTeX programs (FindLATEX)',
  perl: 'the perl interpreter (FindPerl; the library is PerlLibs)',
  pythoninterp: 'the Python interpreter (FindPythonInterp; the library is PythonLibs)',
  java: 'the java, javac and jar programs (FindJava; the library is JNI)',
  bison: 'the bison parser generator (FindBISON)',
  flex: 'the flex scanner generator (FindFLEX)',
  swig: 'the swig wrapper generator (FindSWIG)',
  gettext: 'the msgmerge and msgfmt programs (FindGettext; the library is Intl)',
  patch: 'the patch program (FindPatch)',
  wget: 'the wget program (FindWget)',
  unixcommands: 'bash, cp, gzip, mv, rm, tar (FindUnixCommands)',
  ccache: 'the ccache program (a common project find module)',
  clangformat: 'the clang-format program (a common project find module)',
  clangtidy: 'the clang-tidy program (a common project find module)',
  cppcheck: 'the cppcheck program (a common project find module)',
  valgrind: 'the valgrind program (a common project find module)',
  lcov: 'the lcov and genhtml programs (a common project find module)',
  gcov: 'the gcov program (a common project find module)',
};

/** FindPython/FindPython2/FindPython3: an interpreter unless a component asks for the library (or NumPy's). */
const PYTHON = new Set(['python', 'python2', 'python3']);
const PYTHON_LIBRARY_COMPONENTS = /^(Development(\.Module|\.Embed|\.SABIModule)?|NumPy)$/;

/** FindImageMagick looks for its programs unless a library component (Magick++, MagickWand, MagickCore) is named. */
const IMAGEMAGICK_LIBRARIES = /^Magick(\+\+|Wand|Core)$/;

/** The key of the CMake name in BUILD_TOOLS: lower case without `-`/`_` (`PkgConfig`, `pkg_config` → `pkgconfig`). */
function key(rawName: string): string {
  return cmakeName(rawName).replace(/-/g, '');
}

/** Whether find_package(<rawName> ... COMPONENTS <components>) looks for a build tool rather than a library. */
export function isBuildTool(rawName: string, components: readonly string[]): boolean {
  const k = key(rawName);
  if (PYTHON.has(k)) return !components.some((c) => PYTHON_LIBRARY_COMPONENTS.test(c));
  if (k === 'imagemagick') return !components.some((c) => IMAGEMAGICK_LIBRARIES.test(c));
  return k in BUILD_TOOLS;
}
