// tier: quick
/**
 * The version a declaration resolves to, per ecosystem, where D2 holds its name more than once. The npm tree is
 * the shape `npm ls --all --json --long` prints for chalk ^4.1.2 declared beside log-symbols 1.0.2 (whose own
 * `chalk ^1.0.0` npm nests at 1.1.3): D2 sorts chalk@1.1.3 first, so the first name match is the wrong copy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onlyInstalledVersion, resolvedVersion } from '../../src/audit/resolved-version.js';
import { goEcosystem } from '../../src/ecosystems/go/index.js';
import { javaEcosystem } from '../../src/ecosystems/java/index.js';
import { javascriptEcosystem } from '../../src/ecosystems/javascript/index.js';
import { installedFromTree, parseNpmLs } from '../../src/ecosystems/javascript/npm-tree.js';
import { pythonEcosystem } from '../../src/ecosystems/python/index.js';
import type { EcosystemModule, InstallResult } from '../../src/ecosystems/types.js';
import type { Dependency } from '../../src/core/types.js';

const install = (installed: Dependency[], details: unknown = {}): InstallResult => ({ installed, details, commands: [], durationMs: 0 });

describe('resolvedVersion: the copy a declaration resolves to', () => {
  it('npm: the copy in the project\'s node_modules, not one nested under another package', () => {
    const ls = {
      name: 'pin-nested',
      path: '/p',
      dependencies: {
        chalk: {
          version: '4.1.2',
          path: '/p/node_modules/chalk',
          dependencies: { 'supports-color': { version: '7.2.0', path: '/p/node_modules/supports-color', dependencies: {} } },
        },
        'log-symbols': {
          version: '1.0.2',
          path: '/p/node_modules/log-symbols',
          dependencies: {
            chalk: {
              version: '1.1.3',
              path: '/p/node_modules/log-symbols/node_modules/chalk',
              dependencies: { 'supports-color': { version: '2.0.0', path: '/p/node_modules/log-symbols/node_modules/supports-color', dependencies: {} } },
            },
          },
        },
      },
    };
    const tree = parseNpmLs(JSON.stringify(ls), '/p');
    const installed = installedFromTree(tree);
    assert.equal(installed.find((d) => d.name === 'chalk')?.version, '1.1.3', 'the layer lists the nested copy first');
    const result = install(installed, { tree: tree.root, problems: [], lsExitCode: 0, unreviewedInstallScripts: [] });
    assert.equal(resolvedVersion(javascriptEcosystem as EcosystemModule, { name: 'chalk', id: '^4.1.2' }, result), '4.1.2');
    assert.equal(installed.find((d) => d.name === 'supports-color')?.version, '2.0.0');
    assert.equal(resolvedVersion(javascriptEcosystem as EcosystemModule, { name: 'supports-color' }, result), '7.2.0', 'hoisted: listed under chalk, lying top-level');
    assert.equal(resolvedVersion(javascriptEcosystem as EcosystemModule, { name: 'left-pad', id: '^1' }, result), undefined);
  });

  it('Maven: the artifact of the declared groupId:artifactId, not another group\'s artifact of that name', () => {
    const installed = [
      { name: 'annotations', id: 'com.google.code.findbugs:annotations', version: '3.0.1' },
      { name: 'annotations', id: 'org.jetbrains:annotations', version: '24.1.0' },
    ];
    const dep = { name: 'annotations', id: 'org.jetbrains:annotations', version: '[24,25)' };
    assert.equal(resolvedVersion(javaEcosystem as EcosystemModule, dep, install(installed)), '24.1.0');
    assert.equal(onlyInstalledVersion('annotations', installed), undefined, 'the name alone is ambiguous');
    const reactor = [...installed, { name: 'annotations', id: 'org.jetbrains:annotations', version: '23.0.0' }];
    assert.equal(resolvedVersion(javaEcosystem as EcosystemModule, dep, install(reactor)), undefined, 'modules resolved it to two versions');
  });

  it('Go and pip: the build list\'s or the environment\'s only version of the name', () => {
    const go = [{ name: 'github.com/mattn/go-runewidth', version: 'v0.0.15' }, { name: 'github.com/rivo/uniseg', version: 'v0.4.7' }];
    assert.equal(resolvedVersion(goEcosystem as EcosystemModule, { name: 'github.com/mattn/go-runewidth', version: 'master' }, install(go)), 'v0.0.15');
    const pip = [{ name: 'requests', version: '2.32.3' }, { name: 'urllib3', version: '2.2.3' }];
    assert.equal(resolvedVersion(pythonEcosystem as EcosystemModule, { name: 'requests' }, install(pip)), '2.32.3');
    assert.equal(onlyInstalledVersion('idna', pip), undefined);
  });
});
