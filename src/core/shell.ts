/** One word for `sh`, always single-quoted. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command line for display: words quoted only where the shell needs it. */
export function shellCommandLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : shellQuote(a))).join(' ');
}
