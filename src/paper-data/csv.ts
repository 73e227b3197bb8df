/** A strict RFC 4180 CSV reader that remembers the line each record starts on, for error messages. */

export interface CsvRecord {
  /** 1-based physical line of the record's first character. */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * Parses comma-separated text with double-quote quoting (`""` inside quotes is a quote; newlines may occur inside
 * quotes). Blank lines are skipped. A quote inside an unquoted field is kept literally (as Python's csv module
 * does); text after a closing quote, or a quote left open at the end, is a syntax error.
 */
export function parseCsv(text: string): CsvRecord[] {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = src.length;
  while (i < n) {
    const startLine = line;
    const fields: string[] = [];
    let field = '';
    let atRecordEnd = false;
    while (!atRecordEnd) {
      if (src[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError(startLine, 'a quoted field is never closed');
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        const after = src[i];
        if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
          throw new CsvSyntaxError(line, 'unexpected text after a closing quote');
        }
      } else {
        while (i < n && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') field += src[i++];
      }
      fields.push(field);
      field = '';
      if (src[i] === ',') {
        i++;
        continue;
      }
      if (src[i] === '\r') i++;
      if (src[i] === '\n') {
        i++;
        line++;
      }
      atRecordEnd = true;
    }
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: startLine, fields });
  }
  return records;
}
