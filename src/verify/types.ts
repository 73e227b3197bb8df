import type { ProjectFiles } from './project-files.js';
import type { SourceFacts } from './facts-types.js';

export type VerifierName = 'architecture' | 'database' | 'orm';
export type Database = 'postgresql' | 'sqlite';
export type Orm = 'sqlalchemy' | 'sequelize';
export const DATABASES: readonly Database[] = ['postgresql', 'sqlite'];
export const ORMS: readonly Orm[] = ['sqlalchemy', 'sequelize'];

/** What the task requires; a constraint left out is not verified. */
export interface Constraints {
  architecture?: 'clean';
  database?: Database;
  orm?: Orm;
}

export interface Evidence {
  /** Project-relative path (`.` for the project as a whole). */
  file: string;
  /** 1-based; 0 when the evidence is not a line (a directory, a missing layer). */
  line: number;
  message: string;
}

export interface Verdict {
  /** The rule set and its version, e.g. `architecture/1`: a verdict is only comparable under the same rules. */
  rules: string;
  passed: boolean;
  evidence: Evidence[];
}

export interface VerifierResult extends Verdict {
  name: VerifierName;
  /** ORM only: the stricter verdict beside the paper-compatible one (`passed`). */
  strict?: Verdict;
}

export interface VerifyReport {
  schemaVersion: 1;
  project: string;
  verifiers: VerifierResult[];
  /** Source files the parser could not read fully (their imports were still read from the tokens, for Python). */
  unparsed: { file: string; reason: string }[];
}

/** Everything a verifier may look at. */
export interface VerifyInput {
  files: ProjectFiles;
  sources: SourceFacts[];
}
