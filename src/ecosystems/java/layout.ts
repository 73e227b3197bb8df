import path from 'node:path';
import type { AuditContext } from '../types.js';

/** Where the Java module keeps its files in the private environment directory (paths as seen inside). */
export function javaLayout(ctx: AuditContext) {
  const root = path.posix.join(ctx.envDir, 'java');
  return {
    root,
    dependencyList: path.posix.join(root, 'dependency-list.txt'),
    /** One jar per runtime dependency (`dependency:copy-dependencies`), so the trace tells them apart. */
    dependencyJars: path.posix.join(root, 'deps'),
    /** Maven's runtime class path order, with the jars in `dependencyJars`. */
    classpathFile: path.posix.join(root, 'classpath.txt'),
    classLoadLogs: path.posix.join(root, 'class-load'),
    projectClasses: path.posix.join(ctx.projectDir, 'target', 'classes'),
    projectTarget: path.posix.join(ctx.projectDir, 'target'),
  };
}
