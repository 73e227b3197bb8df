import path from 'node:path';
import { describeEquivalence } from './equivalence.js';

describeEquivalence({
  ecosystem: 'javascript',
  fixtures: path.join(import.meta.dirname, '..', 'ecosystems', 'javascript', 'fixtures'),
  traced: ['advice', 'chalk-hidden', 'link-script', 'missing', 'nested-versions', 'scoped-dev', 'workspaces'],
  untraced: {
    contract: 'the contract test\'s manifest, read for D1 only: there is nothing to run',
    ...Object.fromEntries(
      ['fail-install-script', 'fail-native-build', 'fail-network', 'fail-no-matching-version', 'fail-no-such-package'].map((f) => [f, 'npm install fails, on purpose']),
    ),
  },
});
