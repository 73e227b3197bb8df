/** JavaScript and TypeScript source facts from the TypeScript compiler's parser (comments are trivia, never nodes). */
import path from 'node:path';
import ts from 'typescript';
import type { CallFact, ClassFact, ImportFact, KeyValueFact, SourceFacts, StringFact } from './facts-types.js';

const SCRIPT_KINDS: Record<string, ts.ScriptKind> = {
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
  '.jsx': ts.ScriptKind.JSX,
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.tsx': ts.ScriptKind.TSX,
};

function dotted(node: ts.Expression): string {
  if (ts.isIdentifier(node)) return node.text;
  if (node.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(node)) return `${dotted(node.expression)}.${node.name.text}`;
  if (ts.isCallExpression(node)) return `${dotted(node.expression)}()`;
  if (ts.isElementAccessExpression(node)) return `${dotted(node.expression)}[]`;
  if (ts.isParenthesizedExpression(node) || ts.isAwaitExpression(node) || ts.isNonNullExpression(node)) return dotted(node.expression);
  return '?';
}

/** A string literal, or a template literal with its substitutions as `{}`. */
function literal(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => `{}${s.literal.text}`).join('');
  return undefined;
}

function propertyName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** Facts of one JavaScript or TypeScript file. `rel` is its project-relative path. */
export function jsFacts(rel: string, text: string): SourceFacts {
  const kind = SCRIPT_KINDS[path.extname(rel).toLowerCase()] ?? ts.ScriptKind.JS;
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const imports: ImportFact[] = [];
  const calls: CallFact[] = [];
  const strings: StringFact[] = [];
  const keyValues: KeyValueFact[] = [];
  const classes: ClassFact[] = [];
  const addImport = (spec: string, node: ts.Node) => imports.push({ spec, line: lineOf(node), level: 0, names: [] });

  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      addImport(node.moduleSpecifier.text, node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const spec = literal(node.moduleReference.expression);
      if (spec !== undefined) addImport(spec, node);
    } else if (ts.isCallExpression(node)) {
      const first = literal(node.arguments[0]);
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) {
        if (first !== undefined) addImport(first, node);
      } else {
        calls.push({ callee: dotted(node.expression), line: lineOf(node), isNew: false, ...(first !== undefined ? { firstArg: first } : {}) });
      }
    } else if (ts.isNewExpression(node)) {
      const first = literal(node.arguments?.[0]);
      calls.push({ callee: dotted(node.expression), line: lineOf(node), isNew: true, ...(first !== undefined ? { firstArg: first } : {}) });
    } else if (ts.isPropertyAssignment(node)) {
      const key = propertyName(node.name);
      const value = literal(node.initializer);
      if (key !== undefined && value !== undefined) keyValues.push({ key, value, line: lineOf(node.initializer) });
    } else if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const bases = (node.heritageClauses ?? []).filter((h) => h.token === ts.SyntaxKind.ExtendsKeyword).flatMap((h) => h.types.map((t) => dotted(t.expression)));
      classes.push({ name: node.name?.text ?? '', bases, line: lineOf(node) });
    }
    const value = ts.isTemplateExpression(node) ? literal(node) : ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;
    if (value !== undefined) strings.push({ value, line: lineOf(node) });
    // A template's parts are not strings of their own.
    if (!ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
    else node.templateSpans.forEach((s) => visit(s.expression));
  };
  visit(source);
  return { file: rel, language: 'javascript', imports, calls, strings, keyValues, classes, assignments: [], bindings: [] };
}
