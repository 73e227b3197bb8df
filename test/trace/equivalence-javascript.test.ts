import path from 'node:path';
import { describeEquivalence } from './equivalence.js';

describeEquivalence({
  ecosystem: 'javascript',
  fixtures: path.join(import.meta.dirname, '..', 'javascript', 'fixtures'),
  traced: ['chalk-hidden', 'link-script', 'nested-versions'],
});
