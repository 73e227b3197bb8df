// tier: quick
/** The runtime lines of a manifest the environment does not satisfy are refused before any run (src/repro/runtime-check.ts). */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import type { EcosystemId } from '../../src/core/types.js';
import { ecosystem } from '../../src/ecosystems/index.js';
import { nodeRangeSatisfied } from '../../src/ecosystems/javascript/engines.js';
import { unmetRuntime } from '../../src/repro/runtime-check.js';
import { FIXTURES } from './helpers.js';

/** The versions the environments are built with (docs/environments.md), as `envproof env list` records them. */
const ENVIRONMENT_TOOLS: Record<string, string> = { node: '20.20.2', python3: '3.11.2', go: '1.26.8' };

async function requirementOf(id: EcosystemId, fixture: string) {
  const required = await ecosystem(id).repro!.runtimeRequirement!(path.join(FIXTURES, fixture));
  assert.ok(required, `${fixture} names a runtime`);
  return required;
}

describe('runtime requirements of the manifest', () => {
  for (const [id, fixture, tool, range, source] of [
    ['javascript', 'needs-node22', 'node', '>=22', 'package.json engines.node'],
    ['python', 'needs-python313', 'python3', '>=3.13', 'pyproject.toml requires-python'],
    ['go', 'needs-go199', 'go', '>= 1.99', 'go.mod go line'],
  ] as const) {
    test(`${source} the environment does not satisfy is refused, naming what it has`, async () => {
      const required = await requirementOf(id, fixture);
      assert.deepEqual([required.tool, required.range, required.source], [tool, range, source]);
      const refusal = unmetRuntime(required, ENVIRONMENT_TOOLS, id);
      assert.ok(refusal instanceof UsageError);
      assert.equal(refusal.message, `the project asks for ${tool} ${range} (${source}), and the ${id} environment has ${tool} ${ENVIRONMENT_TOOLS[tool]}`);
      assert.equal(unmetRuntime(required, { [tool]: '99.0' }, id), undefined, 'a new enough runtime is let through');
      assert.equal(unmetRuntime(required, {}, id), undefined, 'a runtime whose version is not recorded is not refused');
    });
  }

  test('a project naming no runtime is not refused', async () => {
    assert.equal(await ecosystem('javascript').repro!.runtimeRequirement!(path.join(FIXTURES, 'js-clean')), undefined);
    assert.equal(await ecosystem('python').repro!.runtimeRequirement!(path.join(FIXTURES, 'py-clean')), undefined);
  });

  test("npm's range syntax for engines.node", () => {
    const cases: [string, string, boolean | undefined][] = [
      ['>=22', '20.20.2', false],
      ['>=20', '20.20.2', true],
      ['^18 || ^20', '20.20.2', true],
      ['^18 || >=21', '20.20.2', false],
      ['>=14 <20', '20.20.2', false],
      ['>=14 <21', '20.20.2', true],
      ['18 - 20', '20.20.2', true],
      ['18 - 19', '20.20.2', false],
      ['20.x', '20.20.2', true],
      ['~20.19', '20.20.2', false],
      ['~20.20.0', '20.20.2', true],
      ['^0.10', '0.11.0', false],
      ['>20', '20.20.2', false],
      ['>20.1', '20.20.2', true],
      ['<=20', '20.20.2', true],
      ['*', '20.20.2', true],
      ['', '20.20.2', true],
      ['lts/iron', '20.20.2', undefined],
    ];
    for (const [range, version, want] of cases) assert.equal(nodeRangeSatisfied(range, version), want, `${range} on ${version}`);
  });
});
