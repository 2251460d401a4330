// The whole conformance suite (conformance/suite.json) through the native
// addon: one test per case, named by the case. Writes
// target/conformance/node.json for the parity table
// (`cargo run -p workload-lens-conformance -- table`).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import * as wl from 'workload-lens';
import { CannotRun, compare, loadCases, runCase } from '../testing/conformance-runner.mjs';
import { REPO } from '../testing/fixtures.mjs';

const RUNTIME = 'node';
const suite = JSON.parse(readFileSync(process.env.WORKLOAD_LENS_SUITE ?? join(REPO, 'conformance', 'suite.json'), 'utf8'));
const CASES = loadCases(suite);
const results = {};

after(() => {
  const out = join(REPO, 'target', 'conformance', `${RUNTIME}.json`);
  mkdirSync(join(REPO, 'target', 'conformance'), { recursive: true });
  const sorted = Object.fromEntries(Object.entries(results).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
  const count = (s) => Object.values(results).filter((x) => x === s).length;
  console.log(`conformance (${RUNTIME}): ${count('pass')} passed, ${count('fail')} failed, ${count('known')} skipped`);
});

describe('conformance', () => {
  it('the suite is not empty and names are unique', () => {
    assert.ok(CASES.length > 0);
    assert.equal(new Set(CASES.map(([c]) => c.name)).size, CASES.length);
  });

  for (const [c, group] of CASES) {
    const reason = c.knownDifferences?.[RUNTIME];
    if (reason !== undefined) {
      results[c.name] = 'known';
      it(c.name, { skip: `known difference: ${reason}` }, () => {});
      continue;
    }
    it(c.name, () => {
      results[c.name] = 'fail';
      let actual;
      try {
        actual = runCase(wl, c, group);
      } catch (e) {
        if (e instanceof CannotRun) assert.fail(`cannot run: ${e.message}`);
        throw e;
      }
      const difference = compare(c.expect, actual);
      if (difference !== null) assert.fail(difference);
      results[c.name] = 'pass';
    });
  }
});
