/**
 * What the static verifiers know about one source file, read with a real parser (Python's own `ast` module,
 * the TypeScript compiler for JavaScript and TypeScript): never a regular expression over the text, so imports
 * or connection strings inside comments and docstrings do not count.
 */
export type SourceLanguage = 'python' | 'javascript';

export interface ImportFact {
  /** The module as written: `app.services.users`, `./routes/index.js`, `sqlite3`. */
  spec: string;
  line: number;
  /** Python relative imports: the number of leading dots (0 = absolute; always 0 for JavaScript). */
  level: number;
  /** Python `from x import a, b`: the imported names (a submodule may be among them). */
  names: string[];
}

export interface CallFact {
  /** The callee as a dotted path; parts that are not names are `?`, calls in a chain end in `()`: `db.session.query().filter`. */
  callee: string;
  line: number;
  /** The first argument when it is a string literal (f-strings and template literals with their holes as `{}`). */
  firstArg?: string;
  /** `new X(...)` in JavaScript. */
  isNew: boolean;
}

export interface StringFact {
  value: string;
  line: number;
}

/** A string value under a key: a dict entry or keyword argument (Python), an object property (JavaScript). */
export interface KeyValueFact {
  key: string;
  value: string;
  line: number;
}

export interface ClassFact {
  name: string;
  /** Base classes (Python) or the `extends` expression (JavaScript), as dotted paths. */
  bases: string[];
  line: number;
}

/** A module-level assignment (Python only): the Django `DATABASES` rule needs to know which one comes last. */
export interface AssignmentFact {
  /** The target as written: `DATABASES`, `DATABASES['default']`. */
  target: string;
  line: number;
  endLine: number;
}

/**
 * A name bound anywhere in a module (Python only): `x = value`, `x: Annotation = value`, `with value as x`, a
 * parameter `x: Annotation`. `value` is the dotted text of the value or the annotation (`Session`, `sessionmaker()`,
 * `{}`-like values are `?`). The ORM rule follows them to tell what a method's receiver is.
 */
export interface BindingFact {
  name: string;
  value: string;
  line: number;
}

export interface SourceFacts {
  /** Path relative to the project root, with `/`. */
  file: string;
  language: SourceLanguage;
  imports: ImportFact[];
  calls: CallFact[];
  /** String literals, without docstrings. */
  strings: StringFact[];
  keyValues: KeyValueFact[];
  classes: ClassFact[];
  assignments: AssignmentFact[];
  bindings: BindingFact[];
  /**
   * Set when the parser could not read the file. For Python the imports are then read from the token stream
   * (still no comments or strings), everything else is empty.
   */
  parseError?: string;
}
