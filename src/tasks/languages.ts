import { LANGUAGE_NAMES, type EcosystemId } from '../core/types.js';
import { goFacts } from '../ecosystems/go/facts.js';

/** What a prompt says about each language: its display name, manifest and the runtime of the clean machine. */
export interface LanguageFacts {
  displayName: string;
  manifest: string;
  runtime: string;
  /** The folder of the paper's prompt files for this language (none for languages the paper did not cover). */
  envgapFolder?: string;
}

export const LANGUAGE_FACTS: Record<EcosystemId, LanguageFacts> = {
  python: { displayName: LANGUAGE_NAMES.python, manifest: 'requirements.txt', runtime: 'Python 3.10 or newer', envgapFolder: 'python_prompts' },
  java: { displayName: LANGUAGE_NAMES.java, manifest: 'pom.xml', runtime: 'JDK 17 or newer and Maven', envgapFolder: 'java_prompts' },
  javascript: { displayName: LANGUAGE_NAMES.javascript, manifest: 'package.json', runtime: 'Node.js 20 (LTS)', envgapFolder: 'javascript_prompts' },
  cpp: { displayName: LANGUAGE_NAMES.cpp, manifest: 'CMakeLists.txt', runtime: 'G++ 12 and CMake 3.22 or newer', envgapFolder: 'cpp_prompts' },
  go: { displayName: goFacts.displayName, ...goFacts.prompt },
};
