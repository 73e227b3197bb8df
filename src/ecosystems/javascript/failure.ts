import type { Registry } from '../registry.js';
import type { InstallFailureClass } from '../types.js';

/** npm's public registry, or the one ENVPROOF_REGISTRY_NPM names (passed to npm as npm_config_registry). */
export const NPM_REGISTRY: Registry = { variable: 'ENVPROOF_REGISTRY_NPM', fallback: 'https://registry.npmjs.org/' };

const NETWORK_CODES = /\b(ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b/;

/** npm's own error lines (`npm error`, or `npm ERR!` before npm 10), without the prefix, stack frames and log-file pointer. */
export function npmErrorLines(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('npm error') || l.startsWith('npm ERR!'))
    .map((l) => l.replace(/^npm (error|ERR!)\s?/, '').trimEnd())
    .filter((l) => l.trim() !== '' && !/^\s+at /.test(l) && !/^A complete log of this run|^\s+\S+-debug-\d+\.log$/.test(l));
}

/** What kind of install failure npm's output shows. */
export function classifyNpmFailure(output: string): InstallFailureClass {
  const errors = npmErrorLines(output).join('\n');
  const code = /^code (\S+)/m.exec(errors)?.[1];
  if (code === 'E404') return 'no-such-package';
  if (code === 'ETARGET' || /^notarget /m.test(errors)) return 'no-matching-version';
  if (/^command git\b|unknown git error/m.test(errors)) return 'fetch-failure';
  if (NETWORK_CODES.test(errors)) return 'network';
  if (/\bgyp\b|node-pre-gyp|prebuild-install/.test(output)) return 'native-build-failure';
  // A lifecycle script (the project's own or a dependency's install/postinstall) exited non-zero.
  if (/^command failed$/m.test(errors)) return 'native-build-failure';
  return 'other';
}

/** The endpoints npm's connection errors name: the URL it requested, the host it could not resolve or reach. */
export function npmFailingEndpoints(output: string): string[] {
  const errors = npmErrorLines(output).join('\n');
  return [
    ...[...errors.matchAll(/request to (\S+?) failed/g)].map((m) => m[1]!),
    ...[...errors.matchAll(/\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH) ([\w.:[\]-]+)/g)].map((m) => m[1]!),
  ];
}

/** npm's error code (E404, ETARGET, ECONNREFUSED, or a failed script's exit status) and its first few error lines. */
export function npmFailureSummary(output: string): { code?: string; text: string } {
  const lines = npmErrorLines(output);
  const code = lines.map((l) => /^(?:code|errno) (\S+)$/.exec(l)?.[1]).find((c) => c !== undefined);
  const text = lines.filter((l) => !/^(code|errno|syscall) /.test(l) && !/^(404|notarget)\s*$/.test(l)).slice(0, 4).join('\n');
  return { ...(code ? { code } : {}), text };
}
