/**
 * Everything about Go that the rest of envproof needs outside install/run/attribute, in the shape the ecosystem
 * registry takes (one object per ecosystem; see docs/go.md). Until the registry names no language itself, the
 * places that list languages read these facts.
 */
import type { ErrorClass } from '../../protocol/classify.js';
import type { BaselineQuery } from '../../sandbox/recipes.js';
import { GO_MANIFEST } from './declared.js';
import { GO_BUILD_CACHE, goCacheEnv } from './go-env.js';
import { GO_TOOLCHAIN, installGoToolchain } from './toolchain.js';

/** A tool the host backend needs (`envproof env doctor`): how to ask its version, and how to install it. */
export interface DoctorCheck {
  name: string;
  argv: string[];
  version: RegExp;
  fix: string;
}

export interface EcosystemFacts {
  id: string;
  displayName: string;
  manifestFiles: readonly string[];
  prompt: { manifest: string; runtime: string; envgapFolder?: string };
  recipe: {
    debianPackages: readonly string[];
    baseline: readonly BaselineQuery[];
    /**
     * Beyond the ecosystem's Debian packages: what else the clean environment gets (here the Go toolchain), run on
     * the host into the root filesystem being built; `id` names it in the environment's recipe, so another
     * toolchain means a rebuild.
     */
    provision?: { id: string; install(rootDir: string, progress: (message: string) => void): Promise<void> };
  };
  caches: { dirs: readonly string[]; env(cacheRoot: string): Record<string, string> };
  doctor: readonly DoctorCheck[];
  skipDirs: readonly string[];
  readmeSetupCommand?: RegExp;
  failurePatterns: readonly { pattern: RegExp; class: ErrorClass }[];
  normaliseName(raw: string): string;
}

const RUNTIME = `Go ${GO_TOOLCHAIN.language} (modules; no newer toolchain is downloaded)`;

export const goFacts: EcosystemFacts = {
  id: 'go',
  displayName: 'Go',
  manifestFiles: [GO_MANIFEST],
  prompt: { manifest: GO_MANIFEST, runtime: RUNTIME },
  recipe: {
    // gcc and the C library headers for cgo; the toolchain itself comes from the module proxy (toolchain.ts).
    debianPackages: ['gcc', 'libc6-dev'],
    // A fresh environment has no module cache: there is nothing for the go command to list.
    baseline: [],
    provision: { id: `${GO_TOOLCHAIN.module}@${GO_TOOLCHAIN.moduleVersion}`, install: installGoToolchain },
  },
  // Every audit has its own module cache and GOPATH in its environment directory; the build cache is shared (go-env.ts).
  caches: { dirs: [GO_BUILD_CACHE], env: goCacheEnv },
  doctor: [
    {
      name: 'go',
      argv: ['go', 'version'],
      version: /go version go(\S+)/,
      fix: `put a Go toolchain on the PATH, ${GO_TOOLCHAIN.version} as in the Go environment (the host backend uses it; \`bash scripts/setup.sh\` installs it from the module proxy)`,
    },
  ],
  // vendor/ holds copies of modules, never the project's own code.
  skipDirs: ['vendor'],
  readmeSetupCommand: /^go (mod \w+|get|install|generate|vet|test|build)\b/,
  failurePatterns: [
    { pattern: /no required module provides package|cannot find module providing package/, class: 'missing-dependency' },
    // The compiler locates its errors as `file.go:line:column: message`: the code does not compile.
    { pattern: /^\S+\.go:\d+:\d+: /m, class: 'code-bug' },
  ],
  // Module paths are case-sensitive (the proxy escapes capitals); they are compared as written.
  normaliseName: (raw) => raw.trim(),
};
