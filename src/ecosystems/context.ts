import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import type { Sandbox } from '../sandbox/types.js';
import type { TracerChoice } from '../trace/index.js';
import type { AuditContext } from './types.js';

/** The context of an audit in `sandbox`'s work directory, whose project copy and environment are `project/` and `env/`. */
export function auditContext(sandbox: Sandbox, opts: { timeoutMs: number; installTimeoutMs: number; tracer?: TracerChoice; progress(message: string): void }): AuditContext {
  const projectDir = path.posix.join(sandbox.workDir, 'project');
  const envDir = path.posix.join(sandbox.workDir, 'env');
  const hostPath = (inside: string): string => {
    const host = sandbox.toHost(inside);
    if (host === null) throw new EnvproofError(`${inside} is not visible from the host`, 'the path must be inside the sandbox work directory');
    return host;
  };
  return { sandbox, projectDir, envDir, host: { projectDir: hostPath(projectDir), envDir: hostPath(envDir) }, hostPath, ...opts };
}
