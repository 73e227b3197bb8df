/** The report's inline style sheet: system fonts only, nothing fetched. */
export const REPORT_CSS = `
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328;
  max-width: 1100px; margin: 0 auto; padding: 24px 28px 64px; background: #fff; }
h1 { font-size: 1.7em; margin: 0 0 4px; }
h2 { font-size: 1.3em; margin: 40px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #d0d7de; }
h3 { font-size: 1.05em; margin: 24px 0 6px; }
p.lead { color: #57606a; margin-top: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
nav.toc ol { columns: 2; margin: 8px 0; }
figure { margin: 16px 0 24px; }
figure .chart { overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #57606a; margin-top: 4px; }
figure.missing p { background: #f6f8fa; border-left: 4px solid #d0d7de; padding: 8px 12px; margin: 4px 0; }
.table-block { margin: 12px 0 24px; overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.88em; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; }
th { background: #f6f8fa; }
td.num { text-align: right; }
td.na { text-align: center; color: #8c959f; }
tbody tr:nth-child(even) { background: #fafbfc; }
a.csv { font-size: 0.85em; }
p.empty { color: #57606a; font-style: italic; }
`;
