/** Parsers of the commands' numeric options: a bad value is a usage error (exit 2) naming the option. */
import { UsageError } from '../core/errors.js';

export function positiveInt(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer ≥ ${min}, not "${value}"`);
    return n;
  };
}

export function positiveNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number, not "${value}"`);
    return n;
  };
}
