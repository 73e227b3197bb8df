import path from 'node:path';
import { describeEquivalence } from './equivalence.js';

describeEquivalence({
  ecosystem: 'java',
  fixtures: path.join(import.meta.dirname, '..', 'java', 'fixtures'),
  traced: [],
  manifestOnly: { 'orphan-parent': 'its parent POM exists nowhere, so Maven spends minutes looking for it before it fails' },
});
