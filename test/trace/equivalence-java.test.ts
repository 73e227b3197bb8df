import path from 'node:path';
import { describeEquivalence } from './equivalence.js';

describeEquivalence({
  ecosystem: 'java',
  fixtures: path.join(import.meta.dirname, '..', 'ecosystems', 'java', 'fixtures'),
  traced: ['crash', 'gson-jackson', 'parent-bom', 'reactor', 'service-providers', 'shaded'],
  untraced: {
    contract: 'the contract test\'s manifest, read for D1 only: there is nothing to run',
    'bad-entities': 'pom.xml is refused before any build',
    'bad-malformed': 'pom.xml is refused before any build',
    'bad-xxe': 'pom.xml is refused before any build',
    'compile-error': 'it does not compile',
    'undeclared-import': 'it does not compile: it imports what it does not declare',
    'orphan-parent': 'its parent POM exists nowhere',
    'pom-features': 'a fixture of the pom.xml reader (with a Maven cache of its own), not a project to build',
  },
  // A multi-module build: the application module is started by hand, as its audit tests start it.
  // service-providers names no main class in its POM.
  run: { reactor: 'java -cp "app/target/classes:$CLASSPATH" demo.app.Main', 'service-providers': 'java demo.App' },
});
