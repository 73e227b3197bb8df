/**
 * HTML built with a tagged template that escapes every interpolated value: only markup written in a template (or
 * an SVG Vega drew) is ever markup. Everything the store holds — agent names, file contents, logs — is text.
 */
import { escapeHtml } from '../report/html-escape.js';

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new SafeHtml(out);
}

/** Markup made elsewhere and known to be safe (Vega's SVG, which escapes the data it draws). */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
