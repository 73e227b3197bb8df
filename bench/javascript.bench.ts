/**
 * The JavaScript module's pure work at scale: attributing a large traced file set to packages of a
 * synthetic node_modules (1,000 packages, 200 of them nested), and parsing a large `npm ls` tree.
 * Target: 100,000 traced paths attributed in ≤ 1 s.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Attributor } from '../src/ecosystems/javascript/attribute.js';
import { installedFromTree, parseNpmLs } from '../src/ecosystems/javascript/npm-tree.js';

const PACKAGES = 1000;
const NESTED_EVERY = 5;
const FILES_PER_PACKAGE = 100;

const dir = await mkdtemp(path.join(os.tmpdir(), 'envproof-bench-js-'));
try {
  const pkgDirs: string[] = [];
  for (let i = 0; i < PACKAGES; i++) {
    const name = i % 10 === 0 ? `@scope/p${i}` : `p${i}`;
    const rel = i % NESTED_EVERY === 0 && i > 0 ? `node_modules/p${i - 1}/node_modules/${name}` : `node_modules/${name}`;
    await mkdir(path.join(dir, rel), { recursive: true });
    await writeFile(path.join(dir, rel, 'package.json'), JSON.stringify({ name, version: `1.0.${i}` }));
    pkgDirs.push(rel);
  }
  const files = new Set<string>();
  for (const rel of pkgDirs) for (let f = 0; f < FILES_PER_PACKAGE; f++) files.add(path.join(dir, rel, `lib/f${f}.js`));
  for (let f = 0; f < 1000; f++) files.add(`/usr/lib/x86_64-linux-gnu/lib${f}.so`);

  let t = performance.now();
  const result = await new Attributor(dir, dir, []).attribute(files);
  const attributeMs = performance.now() - t;
  console.log(`attribute: ${files.size} paths → ${result.traced.length} packages in ${attributeMs.toFixed(0)} ms (target ≤ 1000 ms, ratio ${(attributeMs / 1000).toFixed(2)})`);

  const tree: Record<string, unknown> = { name: 'bench', version: '1.0.0', path: dir, dependencies: {} };
  const top = tree.dependencies as Record<string, unknown>;
  for (let i = 0; i < 5000; i++) {
    top[`q${i}`] = { name: `q${i}`, version: '1.0.0', path: path.join(dir, 'node_modules', `q${i}`), dependencies: { [`r${i % 50}`]: { name: `r${i % 50}`, version: '2.0.0', path: path.join(dir, 'node_modules', `r${i % 50}`) } } };
  }
  const json = JSON.stringify(tree);
  t = performance.now();
  const installed = installedFromTree(parseNpmLs(json, dir));
  const lsMs = performance.now() - t;
  console.log(`npm ls parse: ${(json.length / 1e6).toFixed(1)} MB, 10,000 nodes → ${installed.length} entries in ${lsMs.toFixed(0)} ms`);
  console.log(`peak memory: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
