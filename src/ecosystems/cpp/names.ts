/**
 * Name normalisation for C++ (docs/paper-data.md §3):
 * - CMake names (find_package, FetchContent, pkg-config modules) are compared as written, lower-cased
 *   with `_` → `-`: `nlohmann_json` and `Nlohmann-JSON` are one name, `libsodium` keeps its `lib`.
 * - Runtime library files get the paper's D3 treatment: lower-case, cut at the first `.so`, drop a
 *   leading `lib`, then the same `_` → `-` (`libz.so.1` → `z`, `libgssapi_krb5.so.2` → `gssapi-krb5`).
 *   Static archives are treated alike, cut at their `.a` (`libfmt.a` → `fmt`).
 */
export function cmakeName(raw: string): string {
  return raw.trim().toLowerCase().replace(/_/g, '-');
}

export function runtimeLibraryName(fileName: string): string {
  const lower = fileName.trim().toLowerCase();
  const cut = lower.indexOf('.so');
  const stem = cut >= 0 ? lower.slice(0, cut) : lower.replace(/\.a$/, '');
  return cmakeName(stem.startsWith('lib') ? stem.slice(3) : stem);
}

/** The shared-library file name pattern: `libfoo.so`, `libfoo.so.1.2`, `libfoo-2.0.so.0`. */
export function isSharedLibrary(fileName: string): boolean {
  return /\.so(\.\d+)*$/.test(fileName);
}

/** The C/C++ runtime and the dynamic loader, which every program loads (the paper excludes them). */
const RUNTIME_BASE = /^(libc|libstdc\+\+|libm|libgcc_s|libpthread|libdl|librt)\.so(\.|$)|^ld-linux[^/]*\.so|^ld64\.so/;

export function isRuntimeBase(fileName: string): boolean {
  return RUNTIME_BASE.test(fileName);
}
