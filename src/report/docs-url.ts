/**
 * Links into envproof's documentation for the outputs (SARIF `helpUri`, `informationUri`): under ENVPROOF_DOCS_URL
 * when it names a hosted copy of docs/ (e.g. https://github.com/<owner>/envproof/blob/main/docs/), else the docs/
 * directory this installation ships (package.json `files`).
 */
const SHIPPED_DOCS = new URL('../../docs/', import.meta.url);

export function docsUrl(page: string, anchor?: string): string {
  const hosted = process.env.ENVPROOF_DOCS_URL;
  const base = hosted ? new URL(hosted.endsWith('/') ? hosted : `${hosted}/`) : SHIPPED_DOCS;
  return `${new URL(page, base).href}${anchor ? `#${anchor}` : ''}`;
}
