import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { EnvproofError, errorMessage } from '../../core/errors.js';

/** An XML element with attributes dropped: child elements by name, always as arrays; text-only children as strings. */
export interface XmlElement {
  [name: string]: XmlValue[];
}
export type XmlValue = string | XmlElement;

const parser = new XMLParser({
  ignoreAttributes: true,
  // Versions such as 1.10 must stay strings.
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  // Also decodes numeric character references (&#65; &#x41;).
  htmlEntities: true,
  isArray: () => true,
  captureMetaData: true,
});

const META = XMLParser.getMetaDataSymbol();
/** The line each element starts on, for `source` fields. */
const startLines = new WeakMap<XmlElement, number>();

export function lineOf(e: XmlElement): number | undefined {
  return startLines.get(e);
}

function recordLines(root: XmlElement, text: string): void {
  const newlines: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines.push(i);
  const lineAt = (offset: number) => {
    let lo = 0;
    let hi = newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (newlines[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  const visit = (e: XmlElement) => {
    const start = (e as unknown as Record<symbol, { startIndex?: number } | undefined>)[META as symbol]?.startIndex;
    if (start !== undefined) startLines.set(e, lineAt(start));
    for (const values of Object.values(e)) for (const v of values) if (typeof v !== 'string') visit(v);
  };
  visit(root);
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * A POM never needs a document type. Any DOCTYPE or ENTITY declaration is refused before parsing, so neither
 * external entities (XXE) nor nested entity expansion ("billion laughs") can reach the parser.
 */
function refuseDeclarations(text: string, file: string): void {
  // Blank out comments and CDATA (keeping offsets) so that only real markup is checked.
  const markup = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g, (m) => m.replace(/[^\n]/g, ' '));
  const found = /<!(DOCTYPE|ENTITY)\b/i.exec(markup);
  if (found) {
    throw new EnvproofError(
      `${file}: refused: it contains a <!${found[1]!.toUpperCase()}> declaration (${lineAndColumn(text, found.index)})`,
      'a pom.xml needs no document type or entity declarations; they can read local files (XXE) or expand without bound. Remove the declaration.',
    );
  }
}

/** Parses a pom.xml into its <project> element. Malformed or hostile XML is an EnvproofError naming the position. */
export function parsePomXml(raw: string, file: string): XmlElement {
  const text = raw.replace(/^\uFEFF/, ''); // a UTF-8 byte order mark, which Maven accepts
  refuseDeclarations(text, file);
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    const where = `line ${line ?? 1}${col ? `, column ${col}` : ''}`;
    throw new EnvproofError(`${file}: malformed XML at ${where}: ${msg}`, 'fix the XML so that Maven can read it');
  }
  let doc: XmlElement;
  try {
    doc = parser.parse(text) as XmlElement;
  } catch (err) {
    throw new EnvproofError(`${file}: cannot be read as XML: ${errorMessage(err)}`, 'fix the XML so that Maven can read it');
  }
  recordLines(doc, text);
  const project = doc.project?.[0];
  if (project === undefined) throw new EnvproofError(`${file}: the root element is not <project>`, 'a Maven POM starts with <project>');
  return typeof project === 'string' ? {} : project;
}

/** The child elements called `name` (those with element content only). */
export function elements(parent: XmlElement | undefined, name: string): XmlElement[] {
  return (parent?.[name] ?? []).filter((v): v is XmlElement => typeof v !== 'string');
}

export function element(parent: XmlElement | undefined, name: string): XmlElement | undefined {
  return elements(parent, name)[0];
}

/** The text of the first child called `name`; undefined when absent, '' when empty. */
export function text(parent: XmlElement | undefined, name: string): string | undefined {
  const v = parent?.[name]?.[0];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  const inner = v['#text']?.[0];
  return typeof inner === 'string' ? inner : '';
}

/** Follows a path of child names, e.g. ['build', 'plugins', 'plugin']. */
export function elementsAt(root: XmlElement | undefined, path: readonly string[]): XmlElement[] {
  let current: XmlElement[] = root ? [root] : [];
  for (const name of path) current = current.flatMap((e) => elements(e, name));
  return current;
}

/** Every descendant (at any depth) called `name` with text content, in document order. */
export function descendantTexts(root: XmlElement, name: string): string[] {
  const found: string[] = [];
  const visit = (e: XmlElement) => {
    for (const [key, values] of Object.entries(e)) {
      for (const v of values) {
        if (typeof v === 'string') {
          if (key === name) found.push(v);
        } else visit(v);
      }
    }
  };
  visit(root);
  return found;
}
