/**
 * A deliberately small part of CMake's variable semantics, enough for declarations written as
 * `set(JSON_VERSION 3.11.2)` … `GIT_TAG v${JSON_VERSION}`: literal set()/list(APPEND|PREPEND)/project() in file order, no
 * control flow (both branches of an if() are read), no functions, no cache or environment. References
 * it cannot resolve stay as written, and the caller skips names that still contain them.
 */
import type { CmakeArgument, CommandInvocation } from './lexer.js';

export type Variables = Map<string, string>;

const REFERENCE = /\$\{([A-Za-z0-9_.+-]+)\}/g;

function expand(value: string, vars: Variables): string {
  return value.replace(REFERENCE, (ref, name: string) => vars.get(name) ?? ref);
}

function expandArgument(arg: CmakeArgument, vars: Variables): CmakeArgument[] {
  if (arg.kind === 'bracket') return [arg];
  const value = expand(arg.value, vars);
  // An unquoted argument whose expansion is a list becomes several arguments, as in CMake.
  if (arg.kind === 'unquoted' && value !== arg.value) return value.split(';').filter(Boolean).map((v) => ({ ...arg, value: v }));
  return [{ ...arg, value }];
}

/** The command with its arguments expanded; set()/list()/project() update `vars` as a side effect. */
export function evaluate(cmd: CommandInvocation, vars: Variables): CommandInvocation {
  const args = cmd.args.flatMap((a) => expandArgument(a, vars));
  const values = args.map((a) => a.value);
  if (cmd.name === 'set' && values[0]) {
    const cacheAt = values.indexOf('CACHE');
    if (!values.includes('PARENT_SCOPE')) vars.set(values[0], (cacheAt > 0 ? values.slice(1, Math.min(cacheAt, 2)) : values.slice(1)).join(';'));
  } else if (cmd.name === 'list' && (values[0] === 'APPEND' || values[0] === 'PREPEND') && values[1]) {
    const items = values.slice(2);
    const current = vars.get(values[1])?.split(';').filter(Boolean) ?? [];
    vars.set(values[1], (values[0] === 'APPEND' ? [...current, ...items] : [...items, ...current]).join(';'));
  } else if (cmd.name === 'project' && values[0]) {
    vars.set('PROJECT_NAME', values[0]);
    if (!vars.has('CMAKE_PROJECT_NAME')) vars.set('CMAKE_PROJECT_NAME', values[0]);
    const version = values[values.indexOf('VERSION') + 1];
    if (values.includes('VERSION') && version) vars.set('PROJECT_VERSION', version);
  }
  return { ...cmd, args };
}
