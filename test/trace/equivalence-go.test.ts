import path from 'node:path';
import { describeEquivalence } from './equivalence.js';

describeEquivalence({
  ecosystem: 'go',
  fixtures: path.join(import.meta.dirname, '..', 'ecosystems', 'go', 'fixtures'),
  traced: ['cgo-zlib', 'constraints', 'modules'],
  untraced: {
    contract: 'the contract test\'s manifest, read for D1 only: there is nothing to run',
    'no-such-module': 'go mod download fails: the proxy has no such module',
    'syntax-error': 'it does not compile',
    'too-new': "its go line is newer than the environment's toolchain",
  },
});
