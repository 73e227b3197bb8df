/**
 * Which if() branches a default configure takes, as far as option() defaults tell: a declaration under
 * `if(REDIS_STORAGE_BACKEND)` with `option(REDIS_STORAGE_BACKEND "…" OFF)` is not made by a configure without
 * -D flags. Only conditions made of option names, NOT, AND and OR are evaluated; any other condition (a platform
 * variable, a comparison) is unknown, and a branch under it is read as taken, as before.
 */
import type { CommandInvocation } from './lexer.js';

/** option() defaults by name: true (ON), false (OFF), undefined when the default is not a literal boolean. */
export type OptionDefaults = Map<string, boolean | undefined>;

type Truth = boolean | undefined;

const TRUE = /^(ON|YES|TRUE|Y)$/i;
const FALSE = /^(OFF|NO|FALSE|N|IGNORE|NOTFOUND|)$|-NOTFOUND$/i;

function constant(value: string): Truth {
  if (TRUE.test(value) || /^-?[1-9]\d*$/.test(value)) return true;
  if (FALSE.test(value) || value === '0') return false;
  return undefined;
}

/** Records `option(<name> "<help>" [<default>])`; the default is OFF when omitted, as in CMake. */
export function recordOption(cmd: CommandInvocation, options: OptionDefaults): void {
  const [name, , value] = cmd.args.map((a) => a.value);
  if (name) options.set(name, value === undefined ? false : constant(value));
}

function and(a: Truth, b: Truth): Truth {
  return a === false || b === false ? false : a === true && b === true ? true : undefined;
}

function or(a: Truth, b: Truth): Truth {
  return a === true || b === true ? true : a === false && b === false ? false : undefined;
}

/** `A OR NOT B AND C` over option names (AND binds tighter, as in CMake); undefined for anything else. */
export function conditionDefault(words: readonly string[], options: OptionDefaults): Truth {
  if (!words.length) return undefined;
  let result: Truth = false;
  let term: Truth = true;
  let negate = false;
  let expectOperand = true;
  for (const w of words) {
    if (expectOperand && w === 'NOT') negate = !negate;
    else if (expectOperand) {
      if (!options.has(w)) return undefined;
      const v = options.get(w);
      term = and(term, v === undefined ? undefined : negate ? !v : v);
      negate = false;
      expectOperand = false;
    } else if (w === 'AND') expectOperand = true;
    else if (w === 'OR') {
      result = or(result, term);
      term = true;
      expectOperand = true;
    } else return undefined;
  }
  return expectOperand ? undefined : or(result, term);
}

interface Frame {
  /** Whether an earlier branch of this if() is taken by default. */
  earlier: Truth;
  current: Truth;
  text: string;
}

/** The stack of if()/elseif()/else()/endif() a file is inside, fed command by command. */
export class BranchTracker {
  private readonly frames: Frame[] = [];

  constructor(private readonly options: OptionDefaults) {}

  /** Updates the stack for control commands; call with the command as written (not expanded). */
  visit(cmd: CommandInvocation): void {
    const words = cmd.args.map((a) => a.value);
    const text = `${cmd.rawName}(${words.join(' ')})`;
    if (cmd.name === 'if') {
      const v = conditionDefault(words, this.options);
      this.frames.push({ earlier: false, current: v, text });
    } else if (cmd.name === 'elseif' || cmd.name === 'else') {
      const frame = this.frames.at(-1);
      if (!frame) return;
      frame.earlier = or(frame.earlier, frame.current);
      const own = cmd.name === 'else' ? true : conditionDefault(words, this.options);
      frame.current = and(frame.earlier === undefined ? undefined : !frame.earlier, own);
      frame.text = cmd.name === 'else' ? `else() of ${frame.text}` : text;
    } else if (cmd.name === 'endif') {
      this.frames.pop();
    }
  }

  /** The innermost enclosing branch a default configure does not take, or undefined. */
  offBranch(): string | undefined {
    return this.frames.filter((f) => f.current === false).at(-1)?.text;
  }
}
