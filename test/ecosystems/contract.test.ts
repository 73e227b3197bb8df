// tier: quick
/**
 * The contract every registered ecosystem module keeps (docs/ecosystems.md), checked on each one's shared fixture:
 * test/ecosystems/<id>/fixtures/contract/ holds a small project and contract.json with what the module must make of it
 * (D1 and its skip reasons), failure messages of its tools with their class, paper names with their normal form,
 * and README setup commands. Registering a module without a fixture fails here.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SKIP_REASONS, type Dependency } from '../../src/core/types.js';
import { FACTORS } from '../../src/repro/types.js';
import type { DependencyColumn, FailurePattern } from '../../src/ecosystems/facts.js';
import { ecosystems, skippedDirs } from '../../src/ecosystems/index.js';
import { runCommandFromReadme } from '../../src/audit/readme-run.js';
import { classifyRunFailure, classifyStepFailure } from '../../src/protocol/classify.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PATTERN_CLASSES: readonly FailurePattern['class'][] = ['missing-dependency', 'missing-system-library', 'build-configuration', 'code-bug'];

interface Contract {
  declared: { name: string; version?: string }[];
  skipped: string[];
  failures: { step: 'run' | 'build'; output: string; class: string }[];
  names: { raw: string; column: DependencyColumn; name: string }[];
  readmeSetup: string[];
}

const isDependency = (d: Dependency) => typeof d.name === 'string' && d.name !== '' && (d.version === undefined || typeof d.version === 'string');

describe('the ecosystem registry', () => {
  it('registers each id, manifest file and cache directory once', () => {
    const ids = ecosystems().map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length);
    const manifests = ecosystems().flatMap((e) => e.manifestFiles);
    assert.equal(new Set(manifests).size, manifests.length, 'a manifest file names one ecosystem');
    const dirs = ecosystems().flatMap((e) => e.caches.dirs);
    assert.equal(new Set(dirs).size, dirs.length, 'a cache directory belongs to one ecosystem');
    const runners = ecosystems().flatMap((e) => Object.keys(e.repro?.testOrder ?? {}));
    assert.equal(new Set(runners).size, runners.length, "a test runner's shuffle is one ecosystem's fact");
  });
});

for (const module of ecosystems()) {
  describe(`the ${module.id} ecosystem module`, () => {
    const dir = path.join(HERE, module.id, 'fixtures', 'contract');
    const contractFile = path.join(dir, 'contract.json');

    it('has a contract fixture', () => {
      assert.ok(existsSync(contractFile), `add ${path.relative(process.cwd(), contractFile)} and its project (docs/ecosystems.md)`);
    });
    if (!existsSync(contractFile)) return;
    const contract = JSON.parse(readFileSync(contractFile, 'utf8')) as Contract;

    it('states its facts in the registry shape', () => {
      assert.match(module.id, /^[a-z][a-z0-9]*$/);
      assert.ok(module.displayName.trim() !== '' && module.projectKind.trim() !== '');
      assert.ok(module.manifestFiles.length > 0);
      assert.ok(module.manifestFiles.includes(module.prompt.manifest), 'the prompt names one of its manifests');
      assert.ok(module.prompt.runtime.trim() !== '');
      assert.ok(module.recipe.debianPackages.length > 0 || module.recipe.provision, 'the environment gets a toolchain: Debian packages or a provision');
      assert.ok(module.prompt.promise.length > 0, "the prompt's runtime as data");
      for (const t of module.prompt.promise) {
        assert.ok(module.doctor.some((c) => c.name === t.check), `the promise's ${t.check} is one of the doctor checks`);
        if (t.atLeast) assert.match(t.atLeast, /^\d+(\.\d+)*$/);
      }
      for (const p of module.recipe.debianPackages) assert.match(p, /^[a-z0-9][a-z0-9+.-]+$/, `Debian package name ${p}`);
      for (const q of module.recipe.baseline) assert.ok(q.manager !== '' && q.argv.length > 0);
      for (const c of module.doctor) {
        assert.ok(c.name !== '' && c.argv.length > 0 && c.fix !== '');
        assert.equal(new RegExp(c.version).exec('')?.[1], undefined, `${c.name}: the version pattern needs the tool's output`);
      }
      for (const d of module.skipDirs) assert.match(d, /^[^/]+$/, 'a folder name, not a path');
      for (const d of module.skipDirs) assert.ok(skippedDirs().has(d));
      for (const p of module.failurePatterns) assert.ok(PATTERN_CLASSES.includes(p.class), `${p.pattern}: class ${p.class}`);
      if (module.readmeSetupCommand) assert.ok(module.readmeSetupCommand.source.startsWith('^'), 'anchored at the line start');
    });

    it('points every package-cache variable into its own cache directories', () => {
      const root = '/cache-root';
      for (const p of module.caches.publishers) assert.ok(module.caches.dirs.includes(p.dir), `publisher of ${p.dir}`);
      const values = Object.values(module.caches.env(root));
      for (const d of module.caches.dirs) assert.ok(values.some((v) => v.includes(path.join(root, d))), `a variable points at ${d}`);
      for (const v of values.filter((x) => x.includes(root))) {
        assert.ok(module.caches.dirs.some((d) => v.includes(path.join(root, d))), `${v} is inside one of ${module.caches.dirs.join(', ')}`);
      }
    });

    it('reads the fixture manifest into a D1 of the declared shape', async () => {
      const r = await module.extractDeclared(dir);
      assert.ok(module.manifestFiles.includes(r.manifest), `manifest ${r.manifest}`);
      for (const d of [...r.declared, ...Object.values(r.other).flat()]) assert.ok(isDependency(d), JSON.stringify(d));
      assert.ok(Array.isArray(r.notes) && r.notes.every((n) => typeof n === 'string'));
      assert.deepEqual(
        r.declared.map((d) => ({ name: d.name, ...(d.version !== undefined ? { version: d.version } : {}) })),
        contract.declared,
      );
    });

    it('skips what it cannot name, for a reason of the closed set', async () => {
      const r = await module.extractDeclared(dir);
      for (const s of r.skipped) {
        assert.ok((SKIP_REASONS as readonly string[]).includes(s.reason), `${s.raw}: ${s.reason}`);
        assert.ok(s.raw !== '');
      }
      assert.deepEqual(r.skipped.map((s) => s.reason), contract.skipped);
    });

    it('classes its tools\' failure messages, each pattern exercised', () => {
      for (const f of contract.failures) {
        const got = f.step === 'run' ? classifyRunFailure(f.output, false) : classifyStepFailure(f.step, 'other', f.output);
        assert.equal(got, f.class, f.output);
      }
      for (const p of module.failurePatterns) {
        assert.ok(contract.failures.some((f) => p.pattern.test(f.output) && f.class === p.class), `no fixture message for ${p.pattern}`);
      }
    });

    it('normalises paper names as the paper does, idempotently', () => {
      assert.ok(contract.names.length > 0);
      for (const n of contract.names) {
        const name = module.normaliseName(n.raw, n.column);
        assert.equal(name, n.name, n.raw);
        assert.equal(module.normaliseName(name, n.column), name, `${n.raw}: normalising twice changes nothing`);
        // The paper's analysis lower-cases and writes `_` as `-`; an ecosystem the paper has no data for (Go, whose
        // module paths are case-sensitive) compares names as written.
        if (module.prompt.envgapFolder) {
          assert.equal(name, name.toLowerCase());
          assert.doesNotMatch(name, /_/);
        }
      }
    });

    it("states repro's facts in the repro part's shape, or has none (repro then refuses it as not supported)", async () => {
      const repro = module.repro;
      if (!repro) return;
      assert.equal(typeof repro.clockProbe, 'function');
      assert.equal(typeof repro.cpuProbe, 'function');
      if (repro.clockLimit !== undefined) assert.ok(repro.clockLimit.trim() !== '');
      const dated = repro.datedResolution;
      assert.ok(dated.supported ? typeof dated.start === 'function' : dated.why.trim() !== '', 'dated resolution: how, or why there is none');
      for (const f of repro.randomByDefault) assert.ok((FACTORS as readonly string[]).includes(f), `random by default: ${f}`);
      for (const [runner, order] of Object.entries(repro.testOrder)) {
        const shuffled = order!.shuffled(42, {});
        if ('why' in shuffled) assert.ok(shuffled.why.trim() !== '', `${runner}: why it cannot shuffle`);
        else assert.ok(shuffled.label !== '' && JSON.stringify(shuffled.options).includes('42'), `${runner}: the seed reaches the runner`);
      }
      const required = await repro.runtimeRequirement?.(dir);
      if (required) {
        assert.ok(module.prompt.promise.some((t) => t.check === required.tool), `${required.source} is checked against a promised tool, not ${required.tool}`);
        assert.ok(required.range.trim() !== '' && required.source.trim() !== '');
      }
      for (const d of (await repro.testDependencies?.(dir)) ?? []) assert.ok(d.command.trim() !== '' && d.source.trim() !== '');
      if (repro.missingTool) assert.ok(new RegExp(`${repro.missingTool.source}|`).exec('')!.length > 1, 'the missing tool is the pattern\'s group 1');
    });

    it('lets a README run section show its setup commands before the run command', () => {
      if (!module.readmeSetupCommand) return;
      assert.ok(contract.readmeSetup.length > 0);
      for (const setup of contract.readmeSetup) {
        assert.match(setup, module.readmeSetupCommand);
        assert.equal(runCommandFromReadme(`# Usage\n\n\`\`\`\n$ ${setup}\n$ ./contract-demo --now\n\`\`\`\n`), './contract-demo --now', setup);
      }
    });
  });
}
