import { EnvproofError } from '../../core/errors.js';
import type { AuditContext } from '../types.js';

/** The project directory on the host, for reading its files. */
export function hostProjectDir(ctx: AuditContext): string {
  const dir = ctx.sandbox.toHost(ctx.projectDir);
  if (dir === null) throw new EnvproofError(`the project directory ${ctx.projectDir} is not visible from the host`);
  return dir;
}
