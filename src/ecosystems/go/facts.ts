/** What envproof needs to know about Go besides install, run and attribute (docs/ecosystems.md, docs/go.md). */
import type { EcosystemFacts } from '../facts.js';
import { GO_MANIFEST } from './declared.js';
import { GO_TOOLCHAIN, installGoToolchain } from './toolchain.js';

const RUNTIME = `Go ${GO_TOOLCHAIN.language} (modules; no newer toolchain is downloaded)`;

export const goFacts: EcosystemFacts = {
  id: 'go',
  displayName: 'Go',
  projectKind: 'Go (modules)',
  manifestFiles: [GO_MANIFEST],
  prompt: { manifest: GO_MANIFEST, runtime: RUNTIME, promise: [{ check: 'go', atLeast: GO_TOOLCHAIN.language }] },
  recipe: {
    // gcc and the C library headers for cgo; the toolchain itself comes from the module proxy (toolchain.ts).
    debianPackages: ['gcc', 'libc6-dev'],
    // A fresh environment has no module cache: there is nothing for the go command to list.
    baseline: [],
    provision: { id: `${GO_TOOLCHAIN.module}@${GO_TOOLCHAIN.moduleVersion}`, install: installGoToolchain },
  },
  // Every audit has its own module cache, GOPATH and build cache in its environment directory (go-env.ts, std-cache.ts).
  caches: { dirs: [], env: () => ({}), publishers: [] },
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
