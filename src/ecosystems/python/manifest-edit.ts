/**
 * `envproof fix` for Python: requirements.txt (and the files it includes) or pyproject.toml's
 * `[project].dependencies`, edited in place. Only the characters of the changed requirement move: a pin replaces
 * the version specifier, a removal deletes the requirement's own lines, an addition appends one line or array item.
 */
import type { DeclaredResult } from '../../core/types.js';
import { sourceLocation, type EditOutcome, type ManifestEdit, type ManifestEditor, type ManifestLocation } from '../outputs.js';
import { appendLine, EditSession, eolOf, indentAt, lineNumber, lineStart, nextLineStart, offsetOfLine, type TextEdit } from '../text-edits.js';

const NAME_AND_EXTRAS = /^\s*[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\s*\[[^\]]*\])?/;
const CLAUSE = String.raw`(?:===|==|!=|~=|<=|>=|<|>)\s*[^\s,;#\\'"]+`;
const SPECIFIERS = new RegExp(String.raw`^\s*(${CLAUSE}(?:\s*,\s*${CLAUSE})*)?`);

/** Where in a requirement the version specifier is (or would go), or why it cannot be pinned there. */
export function specifierSpan(requirement: string): { start: number; end: number } | { refused: string } {
  const head = NAME_AND_EXTRAS.exec(requirement);
  if (!head) return { refused: 'the line does not start with a project name' };
  const rest = requirement.slice(head[0].length);
  if (/^\s*@/.test(rest)) return { refused: 'a direct URL requirement names its own file; pin it by hand' };
  if (/^\s*\(/.test(rest)) return { refused: 'parenthesised specifiers are not edited; pin it by hand' };
  const spec = SPECIFIERS.exec(rest)!;
  const end = head[0].length + spec[0].length;
  return spec[1] ? { start: end - spec[1].length, end } : { start: head[0].length, end: head[0].length };
}

/** The physical lines of the logical requirements.txt line starting at `start` (continued with a trailing `\`). */
function logicalLineEnd(text: string, start: number): number {
  let end = nextLineStart(text, start);
  while (/\\\r?\n$/.test(text.slice(start, end)) && end < text.length) end = nextLineStart(text, end);
  return end;
}

type AddEdit = Extract<ManifestEdit, { kind: 'add' }>;
type ExistingEdit = Exclude<ManifestEdit, AddEdit>;

const requirementOf = (edit: AddEdit) => `${edit.id ?? edit.name}==${edit.version}`;

/** New requirements go to the end of the top requirements file, one line each. */
async function addRequirements(session: EditSession<ManifestEdit>, adds: readonly AddEdit[]): Promise<void> {
  const file = 'requirements.txt';
  const text = (await session.text(file))!;
  const edit = appendLine(text, adds.map(requirementOf).join(eolOf(text)));
  adds.forEach((add, i) => session.change(file, i === 0 ? edit : [], add));
}

async function editRequirement(session: EditSession<ManifestEdit>, edit: ExistingEdit): Promise<void> {
  const at = sourceLocation(edit.dependency.source);
  const text = at && (await session.text(at.file));
  const start = at && text !== undefined ? offsetOfLine(text, at.line!) : undefined;
  if (!at || text === undefined || start === undefined) return session.refuse(edit, `${edit.dependency.source ?? 'its file'} is not a file of the project`);
  if (edit.kind === 'remove') return session.change(at.file, { start, end: logicalLineEnd(text, start), text: '' }, edit);
  const line = text.slice(start, nextLineStart(text, start));
  if (/^\s*-/.test(line)) return session.refuse(edit, 'an option line (-e, -r, ...) is not pinned');
  const span = specifierSpan(line);
  if ('refused' in span) return session.refuse(edit, span.refused);
  session.change(at.file, { start: start + span.start, end: start + span.end, text: `==${edit.version}` }, edit);
}

/** A string item of a TOML array: its token's offsets and its value. */
interface ArrayItem {
  start: number;
  end: number;
  value: string;
  quote: string;
}

/** `[project]`'s `dependencies = [ ... ]`: the array's brackets and its string items; undefined when absent. */
export function projectDependenciesArray(text: string): { open: number; close: number; items: ArrayItem[]; tableEnd: number; header: number } | { refused: string } | undefined {
  const header = /^[ \t]*\[[ \t]*project[ \t]*\][ \t]*(?:#.*)?$/m.exec(text);
  if (!header) return undefined;
  const bodyStart = header.index + header[0].length;
  const next = /^[ \t]*\[/m.exec(text.slice(bodyStart));
  const tableEnd = next ? bodyStart + next.index : text.length;
  const key = /^[ \t]*dependencies[ \t]*=[ \t]*\[/m.exec(text.slice(bodyStart, tableEnd));
  if (!key) return { open: -1, close: -1, items: [], tableEnd, header: header.index };
  const open = bodyStart + key.index + key[0].length - 1;
  const items: ArrayItem[] = [];
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === ']') return { open, close: i, items, tableEnd, header: header.index };
    if (c === '#') i = nextLineStart(text, i) - 1;
    else if (c === '"' || c === "'") {
      if (text.startsWith(c.repeat(3), i)) return { refused: 'multi-line strings in dependencies are not edited' };
      const close = text.indexOf(c, i + 1);
      const value = close < 0 ? '' : text.slice(i + 1, close);
      if (close < 0 || value.includes('\n') || (c === '"' && value.includes('\\'))) return { refused: 'a dependency string with escapes is not edited' };
      items.push({ start: i, end: close + 1, value, quote: c });
      i = close;
    } else if (!/[\s,]/.test(c)) return { refused: 'dependencies holds something other than strings' };
  }
  return { refused: 'the dependencies array is not closed' };
}

/** The item index of a `pyproject.toml:project.dependencies[3]` source. */
function itemIndex(source: string | undefined): number | undefined {
  const m = source ? /^pyproject\.toml:project\.dependencies\[(\d+)\]$/.exec(source) : null;
  return m ? Number(m[1]) : undefined;
}

/** Removing an item: its whole line when it stands alone there, else the item and one comma beside it. */
function removal(text: string, items: readonly ArrayItem[], index: number): TextEdit {
  const item = items[index]!;
  const before = text.slice(lineStart(text, item.start), item.start);
  const afterMatch = /^[ \t]*,?[ \t]*(?:#[^\n]*)?(?:\r?\n|$)/.exec(text.slice(item.end));
  if (/^[ \t]*$/.test(before) && afterMatch) return { start: lineStart(text, item.start), end: item.end + afterMatch[0].length, text: '' };
  const comma = /^\s*,[ \t]*/.exec(text.slice(item.end));
  if (comma) return { start: item.start, end: item.end + comma[0].length, text: '' };
  const previous = items[index - 1];
  return { start: previous ? previous.end : item.start, end: item.end, text: '' };
}

/** Adding items: on new lines after the last item when the array is written one per line, else inline. */
function addition(text: string, array: { open: number; close: number; items: ArrayItem[] }, requirements: readonly string[]): TextEdit[] {
  const last = array.items.at(-1);
  const eol = eolOf(text);
  const quoted = requirements.map((r) => `"${r}"`);
  if (!last) {
    const multiline = text.slice(array.open, array.close).includes('\n');
    return [{ start: array.open + 1, end: array.open + 1, text: multiline ? quoted.map((q) => `${eol}    ${q},`).join('') : quoted.join(', ') }];
  }
  const multiline = /\n/.test(text.slice(last.end, array.close)) || /^[ \t]*$/.test(text.slice(lineStart(text, last.start), last.start));
  const comma = /^[ \t]*,/.exec(text.slice(last.end));
  const edits: TextEdit[] = comma ? [] : [{ start: last.end, end: last.end, text: ',' }];
  const afterComma = last.end + (comma ? comma[0].length : 0);
  if (multiline) {
    const lineEnd = nextLineStart(text, afterComma);
    const ending = text.slice(lineEnd - 1, lineEnd) === '\n' ? '' : eol;
    edits.push({ start: lineEnd, end: lineEnd, text: `${ending}${quoted.map((q) => `${indentAt(text, last.start)}${q},${eol}`).join('')}` });
  } else edits.push({ start: afterComma, end: afterComma, text: quoted.map((q) => ` ${q}${comma ? ',' : ''}`).join(comma ? '' : ',') });
  return edits;
}

/** The [project] dependencies array of pyproject.toml, or why it cannot be edited. */
async function pyprojectArray(session: EditSession<ManifestEdit>): Promise<{ text: string; array: Exclude<ReturnType<typeof projectDependenciesArray>, undefined | { refused: string }> } | string> {
  const text = (await session.text('pyproject.toml'))!;
  const array = projectDependenciesArray(text);
  if (!array) return 'pyproject.toml has no [project] table (Poetry and other tables are not edited)';
  return 'refused' in array ? array.refused : { text, array };
}

async function addToPyproject(session: EditSession<ManifestEdit>, adds: readonly AddEdit[]): Promise<void> {
  const found = await pyprojectArray(session);
  if (typeof found === 'string') return adds.forEach((a) => session.refuse(a, found));
  const { text, array } = found;
  const eol = eolOf(text);
  const at = nextLineStart(text, array.header);
  const edits =
    array.open < 0 ? [{ start: at, end: at, text: `dependencies = [${eol}${adds.map((a) => `    "${requirementOf(a)}",${eol}`).join('')}]${eol}` }] : addition(text, array, adds.map(requirementOf));
  adds.forEach((add, i) => session.change('pyproject.toml', i === 0 ? edits : [], add));
}

async function editPyproject(session: EditSession<ManifestEdit>, edit: ExistingEdit): Promise<void> {
  const file = 'pyproject.toml';
  const found = await pyprojectArray(session);
  if (typeof found === 'string') return session.refuse(edit, found);
  const { text, array } = found;
  const index = itemIndex(edit.dependency.source);
  const item = index === undefined ? undefined : array.items[index];
  if (!item || index === undefined) return session.refuse(edit, `${edit.dependency.source ?? edit.dependency.name} is not an item of [project].dependencies`);
  if (edit.kind === 'remove') return session.change(file, removal(text, array.items, index), edit);
  const span = specifierSpan(item.value);
  if ('refused' in span) return session.refuse(edit, span.refused);
  const value = item.value.slice(0, span.start) + `==${edit.version}` + item.value.slice(span.end);
  session.change(file, { start: item.start, end: item.end, text: `${item.quote}${value}${item.quote}` }, edit);
}

export const pythonManifestEditor: ManifestEditor = {
  async locate(projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
    const out: Record<string, ManifestLocation> = {};
    let array: ReturnType<typeof projectDependenciesArray>;
    let text: string | undefined;
    for (const d of declared.declared) {
      let at = sourceLocation(d.source);
      const index = itemIndex(d.source);
      if (!at && index !== undefined) {
        text ??= await new EditSession<never>(projectDir).text('pyproject.toml');
        array ??= text === undefined ? undefined : projectDependenciesArray(text);
        const item = array && !('refused' in array) ? array.items[index] : undefined;
        if (item && text !== undefined) at = { file: 'pyproject.toml', line: lineNumber(text, item.start) };
      }
      if (at && !out[d.name]) out[d.name] = at;
    }
    return out;
  },

  async apply(projectDir: string, declared: DeclaredResult, edits: readonly ManifestEdit[]): Promise<EditOutcome> {
    const session = new EditSession<ManifestEdit>(projectDir);
    const requirementsTxt = declared.manifest === 'requirements.txt';
    // Pins and removals first, on the text the declarations' sources point into; additions then go after what is left.
    for (const edit of edits) {
      if (edit.kind === 'add') continue;
      await (requirementsTxt ? editRequirement(session, edit) : editPyproject(session, edit));
    }
    session.settle();
    const adds = edits.filter((e): e is AddEdit => e.kind === 'add');
    if (adds.length) await (requirementsTxt ? addRequirements(session, adds) : addToPyproject(session, adds));
    return session.outcome();
  },
};
