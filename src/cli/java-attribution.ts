import { Option } from 'commander';
import type { AuditOptions } from '../audit/audit.js';

export type JavaAttribution = 'loaded' | 'opened';

/** `--java-attribution`, shared by `audit` and `run`. */
export function javaAttributionOption(): Option {
  return new Option('--java-attribution <how>', 'Java D3: jars classes were loaded from, or (as the paper) jars opened').choices(['loaded', 'opened']).default('loaded');
}

/** The audit's view of D3 for the option's value (`loaded` is the Java ecosystem's default). */
export function tracedViewOf(how: JavaAttribution): NonNullable<AuditOptions['tracedView']> {
  return how === 'opened' ? { java: 'opened' } : {};
}
