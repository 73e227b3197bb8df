/**
 * SARIF 2.1.0 writer for one audit: one result per phantom, hidden, missing and unpinned dependency, on the manifest
 * line of its declaration, or the import in the code for a direct hidden and a missing one (the manifest itself for
 * one only other packages load), so code scanning shows them on the pull request.
 */
import { pathToFileURL } from 'node:url';
import type { AuditReport } from '../audit/report.js';
import { docsUrl } from './docs-url.js';
import { findingLevel, findingMessage, FINDING_RULES, manifestPath, reportedFindings, ruleHelpUri, ruleOf } from './finding-rules.js';

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface SarifOptions {
  /** Result URIs are relative to this directory (the repository root in CI); the working directory by default. */
  baseDir: string;
  /** Kinds that fail the exit code: their results are errors, the others warnings. */
  failOn: readonly string[];
}

export function renderSarif(report: AuditReport, opts: SarifOptions): string {
  const rules = Object.values(FINDING_RULES);
  const results = reportedFindings(report).map((f) => {
    const rule = ruleOf(f);
    const where = f.location && manifestPath(report, f.location.file, opts.baseDir);
    return {
      ruleId: rule.id,
      ruleIndex: rules.findIndex((r) => r.id === rule.id),
      level: findingLevel(f, opts.failOn),
      message: { text: findingMessage(f) },
      ...(where
        ? {
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: where.uri, ...(where.relative ? { uriBaseId: 'SRCROOT' } : {}) },
                  ...(f.location?.line ? { region: { startLine: f.location.line } } : {}),
                },
              },
            ],
          }
        : {}),
      partialFingerprints: { 'envproofFinding/v1': `${report.ecosystem}:${rule.id}:${f.name}` },
      properties: {
        package: f.name,
        ...(f.version ? { version: f.version } : {}),
        ...(f.importedAt ? { importedAt: f.importedAt } : {}),
        ...(f.developmentImports ? { developmentImports: f.developmentImports } : {}),
        ...(f.via ? { via: f.via } : {}),
        ...(f.discovery ? { discovery: f.discovery } : {}),
      },
      ...(f.ignored ? { suppressions: [{ kind: 'external', justification: 'listed in the envproof configuration\'s ignore' }] } : {}),
    };
  });
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'envproof',
            version: report.tool.version,
            informationUri: docsUrl('sarif.md'),
            rules: rules.map((r) => ({
              id: r.id,
              name: r.title.replace(/[^A-Za-z]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')),
              shortDescription: { text: r.title },
              fullDescription: { text: r.description },
              help: { text: r.help },
              helpUri: ruleHelpUri(r),
              defaultConfiguration: { level: 'warning' },
              properties: { tags: ['dependencies'] },
            })),
          },
        },
        originalUriBaseIds: { SRCROOT: { uri: pathToFileURL(`${opts.baseDir.replace(/\/+$/, '')}/`).href } },
        invocations: report.runs.map((r) => ({
          executionSuccessful: true,
          commandLine: r.command,
          properties: { traced: true, exitCode: r.exitCode, success: r.success },
        })),
        results,
        properties: { ecosystem: report.ecosystem, manifest: report.manifest, sandbox: report.sandbox.backend },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
