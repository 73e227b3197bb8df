/**
 * GitHub Actions workflow commands for one audit: `::warning file=…,line=…,title=…::message`, one per phantom,
 * hidden, missing and unpinned dependency, so a workflow run shows them on the changed lines without code scanning.
 */
import type { AuditReport } from '../audit/report.js';
import { findingLevel, findingMessage, manifestPath, reportedFindings, ruleOf } from './finding-rules.js';

/** The escaping GitHub's runner applies to workflow commands: data, then property values. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function renderGithubAnnotations(report: AuditReport, opts: { baseDir: string; failOn: readonly string[] }): string {
  const lines = reportedFindings(report)
    .filter((f) => !f.ignored)
    .map((f) => {
      const props: string[] = [];
      if (f.location) {
        props.push(`file=${escapeProperty(manifestPath(report, f.location.file, opts.baseDir).path)}`);
        if (f.location.line) props.push(`line=${f.location.line}`);
      }
      props.push(`title=${escapeProperty(`envproof ${ruleOf(f).id}`)}`);
      const level = findingLevel(f, opts.failOn);
      return `::${level === 'note' ? 'notice' : level} ${props.join(',')}::${escapeData(findingMessage(f))}`;
    });
  return lines.length ? `${lines.join('\n')}\n` : '';
}
