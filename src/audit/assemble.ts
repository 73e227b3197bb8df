/**
 * The audit's report from what it measured: the outputs computed from the layers (SBOM components, findings, the
 * static imports behind the phantom split) and the report object itself.
 */
import type { DeclaredResult, Dependency } from '../core/types.js';
import { EnvproofError } from '../core/errors.js';
import { TOOL_VERSION } from '../core/version.js';
import { locationsFromSources, type ManifestLocation } from '../ecosystems/outputs.js';
import type { AttributionResult, EcosystemModule } from '../ecosystems/types.js';
import type { PreparedAudit } from './audit.js';
import { buildComponents, pathShower } from './components.js';
import { buildFindings, type IgnoreLists } from './findings.js';
import { resolvedVersion } from './resolved-version.js';
import { nameGraph } from './import-sites.js';
import { layer, type Layers, type Measured } from './measure.js';
import { AUDIT_SCHEMA_VERSION, type AuditReport, type PhaseTimes, type RunOutcome } from './report.js';

/** What the outputs add to the audit is never worth failing it for: a failure becomes a note. */
async function optional<T>(work: Promise<T> | undefined, what: string, notes: string[]): Promise<T | undefined> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof EnvproofError)) throw err;
    notes.push(`${what} could not be read: ${err.message}`);
    return undefined;
  }
}

/** Where each declaration is written: the ecosystem's editor knows; else the `file:line` of its source. */
async function declarationLocations(module: EcosystemModule, projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
  return module.manifestEditor ? module.manifestEditor.locate(projectDir, declared) : locationsFromSources(declared);
}

/** Each name a declaring group of `other` lists, with the first group that lists it. */
function declaredElsewhere(declared: DeclaredResult, groups: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const group of groups) for (const d of declared.other[group] ?? []) out[d.name] ??= group;
  return out;
}

/** Once per name (the first declaration of it), with the version that declaration resolved to. */
function unpinnedDeclarations(deps: readonly Dependency[], resolve: (d: Dependency) => string | undefined): { name: string; version?: string }[] {
  const byName = new Map<string, { name: string; version?: string }>();
  for (const d of deps) {
    if (byName.has(d.name)) continue;
    const version = resolve(d);
    byName.set(d.name, { name: d.name, ...(version ? { version } : {}) });
  }
  return [...byName.values()];
}

export type AuditOutputs = Awaited<ReturnType<typeof auditOutputs>>;

/** The SBOM's components and the findings; package facts and static imports only once D3 is known. */
export async function auditOutputs(p: PreparedAudit, layers: Layers, gaps: Measured['gaps'], attribution: AttributionResult | undefined, ignore: IgnoreLists | undefined, runs: readonly RunOutcome[]) {
  const { module, install, own, notes, declared } = p;
  // The project's own distribution is no component of its SBOM (nor a note about its missing hash).
  const ownless = { ...install, installed: install.installed.filter((d) => !own.has(d.name)) };
  const facts = attribution ? await optional(module.componentFacts?.(p.ctx, ownless, attribution), 'package facts for the SBOM', notes) : undefined;
  const staticImports = attribution ? await optional(module.staticImports?.(p.ctx, install, attribution), 'static imports', notes) : undefined;
  const traced = (layers.traced ?? []) as AttributionResult['traced'];
  const components = buildComponents({
    declared: layers.declared,
    installed: layers.installed,
    traced,
    ...(facts ? { facts } : {}),
    showPath: pathShower(p.ctx.projectDir, p.ctx.envDir),
  });
  const isPinned = module.isPinned ?? ((d: Dependency) => d.version !== undefined);
  const findings = buildFindings({
    manifest: declared.manifest,
    declared: layers.declared,
    installed: layers.installed,
    traced,
    gaps,
    unpinned: unpinnedDeclarations(layers.declared.filter((d) => !isPinned(d)), (d) => resolvedVersion(module, d, install)),
    locations: await declarationLocations(module, p.projectDir, declared),
    ...(staticImports ? { staticImports } : {}),
    graph: nameGraph(components),
    failedOutputs: runs.filter((r) => r.started && !r.success).map((r) => r.outputTail),
    ...(ignore ? { ignore } : {}),
    declaredElsewhere: declaredElsewhere(declared, module.declaringGroups ?? []),
    resolvedVersion: (name) => resolvedVersion(module, { name }, install),
  });
  return { components, findings, facts, staticImports };
}

export interface AuditMeasurements {
  runs: RunOutcome[];
  layers: Layers;
  measured: Measured;
  evidence: Record<string, string[]>;
  outputs: AuditOutputs;
  phases: PhaseTimes;
  /** The work directory was kept: the report names it. */
  keep: boolean;
}

export function assembleReport(p: PreparedAudit, m: AuditMeasurements): AuditReport {
  const { module, declared, sandbox, install, notes } = p;
  const { facts, staticImports } = m.outputs;
  return {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    tool: { name: 'envproof', version: TOOL_VERSION },
    project: p.projectDir,
    ecosystem: module.id,
    manifest: declared.manifest,
    sandbox: p.sandboxInfo,
    systemDependencies: sandbox.systemPackages.map(({ name, version }) => ({ name, version })),
    otherDeclared: Object.fromEntries(Object.entries(declared.other).map(([k, v]) => [k, layer(v)])),
    skipped: declared.skipped,
    ownPackages: [...p.own].sort(),
    buildTools: { declared: layer(declared.buildTools ?? []), found: layer(install.buildTools ?? []) },
    ...m.measured,
    run: m.runs[0]!,
    runs: m.runs,
    components: m.outputs.components,
    componentNotes: facts?.notes ?? [],
    ...(staticImports
      ? { staticImports: { method: staticImports.method, imports: staticImports.imports, ...(staticImports.unresolved ? { unresolved: staticImports.unresolved } : {}), notes: staticImports.notes } }
      : {}),
    findings: m.outputs.findings,
    evidence: m.evidence,
    install: { commands: install.commands, details: module.reportedDetails ? module.reportedDetails(install.details) : install.details },
    notes,
    phasesMs: m.phases,
    ...(m.keep ? { workDir: sandbox.hostWorkDir } : {}),
  };
}
