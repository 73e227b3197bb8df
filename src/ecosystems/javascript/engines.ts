/** Whether a Node.js version satisfies a package.json `engines.node` range, read by npm's own range library. */
import semver from 'semver';

/** Undefined for a range npm would not read either (`lts/iron`): the caller lets it through rather than refuse. */
export function nodeRangeSatisfied(range: string, version: string): boolean | undefined {
  if (semver.validRange(range) === null || semver.valid(semver.coerce(version)) === null) return undefined;
  return semver.satisfies(semver.coerce(version)!, range);
}
