import path from 'node:path';
import { APT_INSTALL, paperName, type EcosystemFacts } from '../facts.js';
import { javaCachePublisher } from './cache.js';

/** Quick start for Maven's short runs (C1 only, the serial collector); what they build and resolve is unchanged. */
export const MAVEN_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

export const javaFacts: EcosystemFacts = {
  id: 'java',
  displayName: 'Java',
  projectKind: 'Java (Maven)',
  manifestFiles: ['pom.xml'],
  prompt: { manifest: 'pom.xml', runtime: 'JDK 17 or newer and Maven', envgapFolder: 'java_prompts', promise: [{ check: 'javac', atLeast: '17' }, { check: 'java', atLeast: '17' }, { check: 'mvn' }] },
  recipe: {
    debianPackages: ['openjdk-17-jdk-headless', 'maven'],
    // A fresh environment's Maven local repository is empty: there is nothing for Maven to list.
    baseline: [],
  },
  caches: {
    dirs: ['m2'],
    // Maven's own JVM, not the project's: an audit's Maven runs are short, where the JIT's top tier and the
    // parallel collector cost more CPU than they save (about half of a small project's `mvn package`).
    env: (root) => ({ MAVEN_OPTS: `-Dmaven.repo.local=${path.join(root, 'm2')} ${MAVEN_JVM_OPTIONS}` }),
    publishers: [javaCachePublisher],
  },
  doctor: [
    { name: 'java', argv: ['java', '-version'], version: /version "([^"]+)"/, fix: `${APT_INSTALL} openjdk-17-jdk-headless` },
    { name: 'javac', argv: ['javac', '-version'], version: /javac (\S+)/, fix: `${APT_INSTALL} openjdk-17-jdk-headless` },
    { name: 'mvn', argv: ['mvn', '--version'], version: /Apache Maven (\S+)/, fix: `${APT_INSTALL} maven` },
  ],
  skipDirs: ['target'],
  readmeSetupCommand: /^mvn\b/,
  failurePatterns: [
    { pattern: /java\.lang\.(NoClassDefFoundError|ClassNotFoundException)/, class: 'missing-dependency' },
    { pattern: /package [\w.]+ does not exist/, class: 'missing-dependency' },
    // Compiler settings the project chose that the JDK refuses.
    { pattern: /(?:Source|Target) option \S+ is no longer supported/, class: 'build-configuration' },
    { pattern: /invalid (?:source|target) release/, class: 'build-configuration' },
    { pattern: /release version \S+ not supported/, class: 'build-configuration' },
    // Errors javac locates in a source file: the code itself does not compile.
    { pattern: /\S+\.java:\[\d+,\d+\]/, class: 'code-bug' },
    { pattern: /\S+\.java:\d+: error:/, class: 'code-bug' },
  ],
  // The paper keeps the group of `group:artifact` and cuts a jar's version: `guava-33.0.jar` → `guava`.
  normaliseName(raw) {
    const base = raw.endsWith('.jar') ? raw.slice(0, -4) : raw;
    const colon = base.indexOf(':');
    return paperName(colon !== -1 ? base.slice(0, colon) : base.replace(/-\d[A-Za-z0-9_.-]*$/, ''));
  },
};
