// tier: quick
/**
 * npm packages named only in configuration (JSON with comments, or YAML), expanded the way Babel and ESLint expand short names (their documented
 * name normalisation), and packages located with require.resolve: "loaded by discovery", with the file:line.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configDiscoveries } from '../../../src/ecosystems/javascript/config-discovery.js';
import { scanJsImports } from '../../../src/ecosystems/javascript/static-imports.js';

describe('discovery: packages a tool loads by name', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'envproof-js-discovery-'));
    const files: Record<string, string> = {
      '.babelrc': [
        '{',
        '  // Babel allows comments',
        '  "presets": ["@babel/env", ["minify", { "x": 1 }]],',
        '  "plugins": ["transform-remove-console", "@org/thing", "@org", "module:literal-name", "./local-plugin"],',
        '  "env": { "test": { "plugins": ["babel-plugin-istanbul"] } }',
        '}',
      ].join('\n'),
      '.eslintrc.json': JSON.stringify(
        {
          parser: '@typescript-eslint/parser',
          plugins: ['no-only-tests', '@scope', '@scope/extra'],
          extends: ['eslint:recommended', 'plugin:import/errors', 'standard', '@company', 'plugin:@typescript-eslint/recommended'],
          overrides: [{ files: ['*.test.js'], plugins: ['mocha'] }],
        },
        null,
        2,
      ),
      'package.json': JSON.stringify({ name: 'p', babel: { plugins: ['@babel/plugin-transform-runtime'] }, eslintConfig: { extends: ['prettier'] } }, null, 2),
      'src/locate.js': "const a = 1;\nmodule.exports = require.resolve('left-pad/index.js');\nrequire.resolve(\"./own\");\n",
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('expands Babel and ESLint short names to the packages the tools load, each at its first line', async () => {
    const found = await configDiscoveries(dir);
    const at = (rule: string, evidence: string) => ({ rule, evidence });
    assert.deepEqual(found, {
      '@babel/preset-env': at('babel-config', '.babelrc:3'),
      'babel-preset-minify': at('babel-config', '.babelrc:3'),
      'babel-plugin-transform-remove-console': at('babel-config', '.babelrc:4'),
      '@org/babel-plugin-thing': at('babel-config', '.babelrc:4'),
      '@org/babel-plugin': at('babel-config', '.babelrc:4'),
      'literal-name': at('babel-config', '.babelrc:4'),
      'babel-plugin-istanbul': at('babel-config', '.babelrc:5'),
      '@babel/plugin-transform-runtime': at('babel-config', 'package.json:5'),
      '@typescript-eslint/parser': at('eslint-config', '.eslintrc.json:2'),
      'eslint-plugin-no-only-tests': at('eslint-config', '.eslintrc.json:4'),
      '@scope/eslint-plugin': at('eslint-config', '.eslintrc.json:5'),
      '@scope/eslint-plugin-extra': at('eslint-config', '.eslintrc.json:6'),
      'eslint-plugin-import': at('eslint-config', '.eslintrc.json:10'),
      'eslint-config-standard': at('eslint-config', '.eslintrc.json:11'),
      '@company/eslint-config': at('eslint-config', '.eslintrc.json:12'),
      '@typescript-eslint/eslint-plugin': at('eslint-config', '.eslintrc.json:13'),
      'eslint-plugin-mocha': at('eslint-config', '.eslintrc.json:21'),
      'eslint-config-prettier': at('eslint-config', 'package.json:10'),
    });
  });

  it('ESLint configuration in YAML: .eslintrc.yml, and .eslintrc when it is YAML', async () => {
    const yml = await mkdtemp(path.join(tmpdir(), 'envproof-js-discovery-yml-'));
    try {
      await writeFile(path.join(yml, '.eslintrc.yml'), 'root: true\nplugins:\n  - no-only-tests\nextends:\n  - plugin:import/errors\n');
      await writeFile(path.join(yml, '.eslintrc'), '# YAML, not JSON\nparser: "@babel/eslint-parser"\n');
      assert.deepEqual(await configDiscoveries(yml), {
        '@babel/eslint-parser': { rule: 'eslint-config', evidence: '.eslintrc:2' },
        'eslint-plugin-no-only-tests': { rule: 'eslint-config', evidence: '.eslintrc.yml:3' },
        'eslint-plugin-import': { rule: 'eslint-config', evidence: '.eslintrc.yml:5' },
      });
    } finally {
      await rm(yml, { recursive: true, force: true });
    }
  });

  it('require.resolve names a package without importing it', async () => {
    const result = await scanJsImports(dir);
    assert.deepEqual(result.imports, {});
    assert.deepEqual(result.discovered?.['left-pad'], { rule: 'require-resolve', evidence: 'src/locate.js:2' });
  });
});
