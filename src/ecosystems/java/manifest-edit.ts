/**
 * `envproof fix` for Maven: pom.xml edited as text. A small scanner finds the offsets of the project's own
 * `<dependencies>` (not dependencyManagement, profiles or plugins); a new `<dependency>` is written with the
 * indentation of its siblings, a pin replaces one `<version>`'s text, a removal deletes one `<dependency>` element.
 */
import type { DeclaredResult, Dependency } from '../../core/types.js';
import { locationsFromSources, type EditOutcome, type ManifestEdit, type ManifestEditor, type ManifestLocation } from '../outputs.js';
import { EditSession, eolOf, indentAt, lineStart, nextLineStart, type TextEdit } from '../text-edits.js';

export interface XmlSpan {
  name: string;
  /** Offset of `<` of the start tag, just past its `>`, of `<` of the end tag, just past its `>`. */
  start: number;
  openEnd: number;
  closeStart: number;
  end: number;
  children: XmlSpan[];
}

/** The element tree of an XML text with offsets; comments, CDATA, processing instructions and declarations are skipped. */
export function scanXml(text: string): XmlSpan {
  const root: XmlSpan = { name: '#document', start: 0, openEnd: 0, closeStart: text.length, end: text.length, children: [] };
  const stack: XmlSpan[] = [root];
  let i = 0;
  while ((i = text.indexOf('<', i)) >= 0) {
    if (text.startsWith('<!--', i)) i = text.indexOf('-->', i) + 3;
    else if (text.startsWith('<![CDATA[', i)) i = text.indexOf(']]>', i) + 3;
    else if (text.startsWith('<?', i)) i = text.indexOf('?>', i) + 2;
    else if (text.startsWith('<!', i)) i = text.indexOf('>', i) + 1;
    else {
      let j = i + 1;
      for (let quote = ''; j < text.length; j++) {
        const c = text[j]!;
        if (quote) quote = c === quote ? '' : quote;
        else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      const tag = text.slice(i, j + 1);
      const name = /^<\/?([^\s/>]+)/.exec(tag)?.[1] ?? '';
      if (tag.startsWith('</')) {
        const open = stack.pop()!;
        open.closeStart = i;
        open.end = j + 1;
      } else {
        const span: XmlSpan = { name, start: i, openEnd: j + 1, closeStart: j + 1, end: j + 1, children: [] };
        stack.at(-1)!.children.push(span);
        if (!tag.endsWith('/>')) stack.push(span);
      }
      i = j + 1;
    }
    if (i <= 0) break;
  }
  return root;
}

const child = (e: XmlSpan | undefined, name: string) => e?.children.find((c) => c.name === name);
const inner = (text: string, e: XmlSpan | undefined) => (e ? text.slice(e.openEnd, e.closeStart).trim() : undefined);

function projectDependencies(text: string): { project?: XmlSpan; dependencies?: XmlSpan } {
  const project = child(scanXml(text), 'project');
  return { ...(project ? { project } : {}), ...(child(project, 'dependencies') ? { dependencies: child(project, 'dependencies')! } : {}) };
}

function findDependency(text: string, dependencies: XmlSpan | undefined, dep: Dependency): XmlSpan | undefined {
  const [groupId, artifactId] = (dep.id ?? `:${dep.name}`).split(':');
  return dependencies?.children.find(
    (d) => d.name === 'dependency' && inner(text, child(d, 'artifactId')) === artifactId && (!groupId || inner(text, child(d, 'groupId')) === groupId),
  );
}

/** The element with its own lines when it stands alone on them, else just the element. */
function wholeLines(text: string, e: XmlSpan): TextEdit {
  const from = lineStart(text, e.start);
  const to = nextLineStart(text, e.end);
  const alone = /^[ \t]*$/.test(text.slice(from, e.start)) && /^[ \t]*\r?\n?$/.test(text.slice(e.end, to));
  return alone ? { start: from, end: to, text: '' } : { start: e.start, end: e.end, text: '' };
}

/** New `<dependency>` elements before `</dependencies>`, indented like the existing ones (or a new `<dependencies>`). */
function additions(text: string, project: XmlSpan, dependencies: XmlSpan | undefined, adds: readonly Extract<ManifestEdit, { kind: 'add' }>[]): TextEdit {
  const eol = eolOf(text);
  const sibling = dependencies?.children.find((c) => c.name === 'dependency');
  const outer = dependencies ? indentAt(text, dependencies.start) : indentAt(text, project.children[0]?.start ?? project.openEnd) || '  ';
  const depIndent = sibling ? indentAt(text, sibling.start) : `${outer}${outer || '  '}`;
  const unit = depIndent.slice(outer.length) || '  ';
  const element = (a: (typeof adds)[number]) => {
    const [groupId, artifactId] = (a.id ?? `:${a.name}`).split(':');
    return [`${depIndent}<dependency>`, `${depIndent}${unit}<groupId>${groupId}</groupId>`, `${depIndent}${unit}<artifactId>${artifactId}</artifactId>`, `${depIndent}${unit}<version>${a.version}</version>`, `${depIndent}</dependency>`]
      .map((l) => `${l}${eol}`)
      .join('');
  };
  const body = adds.map(element).join('');
  const closing = dependencies ? dependencies.closeStart : project.closeStart;
  const at = /^[ \t]*$/.test(text.slice(lineStart(text, closing), closing)) ? lineStart(text, closing) : closing;
  const lead = at === closing ? eol : '';
  return { start: at, end: at, text: dependencies ? `${lead}${body}` : `${lead}${outer}<dependencies>${eol}${body}${outer}</dependencies>${eol}` };
}

export const mavenManifestEditor: ManifestEditor = {
  async locate(_projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
    return locationsFromSources(declared);
  },

  async apply(projectDir: string, _declared: DeclaredResult, edits: readonly ManifestEdit[]): Promise<EditOutcome> {
    const session = new EditSession<ManifestEdit>(projectDir);
    const file = 'pom.xml';
    const text = (await session.text(file))!;
    const { project, dependencies } = projectDependencies(text);
    if (!project) {
      edits.forEach((e) => session.refuse(e, 'pom.xml has no <project> element'));
      return session.outcome();
    }
    const adds = edits.filter((e): e is Extract<ManifestEdit, { kind: 'add' }> => e.kind === 'add');
    if (adds.length) {
      const edit = additions(text, project, dependencies, adds);
      adds.forEach((a, i) => session.change(file, i === 0 ? edit : [], a));
    }
    for (const edit of edits) {
      if (edit.kind === 'add') continue;
      const element = findDependency(text, dependencies, edit.dependency);
      if (!element) {
        session.refuse(edit, `${edit.dependency.id ?? edit.dependency.name} is not in the project's own <dependencies> (inherited from a parent?)`);
      } else if (edit.kind === 'remove') {
        session.change(file, wholeLines(text, element), edit);
      } else {
        const version = child(element, 'version');
        if (!version) session.refuse(edit, 'its version is managed (<dependencyManagement> or a BOM): pin it there');
        else if (inner(text, version)!.includes('${')) session.refuse(edit, `its version is the property ${inner(text, version)}: pin the property`);
        else session.change(file, { start: version.openEnd, end: version.closeStart, text: edit.version }, edit);
      }
    }
    return session.outcome();
  },
};
