// tier: quick
/** The Postman collection's denominator when a test script throws, with real Newman against a real local server. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { runPostman } from '../../src/verify/contract/postman.js';
import { scriptAssertionCount } from '../../src/verify/contract/script-assertions.js';

const request = (name: string, exec: string[]) => ({ name, event: [{ listen: 'test', script: { type: 'text/javascript', exec } }], request: { method: 'GET', url: '{{APIURL}}/tags' } });

// Counted by hand: "parses" makes 3 assertions, the first before the JSON.parse that throws on a body that is not
// JSON; "branches" makes 2 on a 200 (its else branch is the failure path) and never throws.
const COLLECTION = {
  info: { name: 'script errors', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
  item: [
    request('parses', ["tests['status'] = responseCode.code === 200;", 'var json = JSON.parse(responseBody);', "tests['has tags'] = json.hasOwnProperty('tags');", "tests['tags is an array'] = Array.isArray(json.tags);"]),
    request('branches', ["tests['first'] = true;", 'if (responseCode.code === 200) {', "    tests['ok'] = true;", '} else {', "    tests['not ok'] = false;", '}']),
  ],
};

test('a test script that throws fails all of its assertions, the unreached ones included, and the run says how many were lost', async () => {
  const server = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not JSON</html>')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const run = await runPostman(COLLECTION, `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, 60_000);
    assert.equal(run.total, 5);
    assert.equal(run.passed, 2, 'only the script that did not throw passes');
    assert.equal(run.lostToScriptErrors, 2);
    assert.equal(run.scriptErrors.length, 1);
    const parses = run.assertions.filter((a) => a.id.startsWith('1. parses'));
    assert.equal(parses.length, 3);
    assert.ok(parses.every((a) => !a.passed && /the test script threw: JSONError: Unexpected token/.test(a.message ?? '')), JSON.stringify(parses));
  } finally {
    server.close();
  }
});

test('the assertions a script owes: tests[...] assignments and pm.test calls outside else branches', () => {
  assert.equal(scriptAssertionCount(COLLECTION.item[0]!.event[0]!.script.exec), 3);
  assert.equal(scriptAssertionCount(COLLECTION.item[1]!.event[0]!.script.exec), 2);
  assert.equal(scriptAssertionCount(["pm.test('a', () => {});", 'if (x) { tests["b"] = 1; } else if (y) { tests["c"] = 2; } else { pm.test("d", f); }', 'if (tests["e"] == 1) {}']), 2);
});
