// tier: quick
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { publishFile } from '../../src/sandbox/cache-files.js';

describe('publishing into a shared cache', () => {
  const shared = mkdtempSync(path.join(os.tmpdir(), 'envproof-cache-files-'));
  after(() => rmSync(shared, { recursive: true, force: true }));

  it('files published at once into the same new directories all arrive (no EEXIST between the publishers)', async () => {
    // As two audits, or one audit's publisher, publish a new artifact's POM, jar and checksums at the same time.
    const files = Array.from({ length: 24 }, (_, i) => `org/example/lib/1.${i % 3}/file-${i}.txt`);
    const published = await Promise.all(files.map((rel) => publishFile(shared, rel, { data: rel })));
    assert.deepEqual(published, files.map(() => true));
    for (const rel of files) assert.equal(readFileSync(path.join(shared, rel), 'utf8'), rel);
  });
});
