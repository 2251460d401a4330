// Everything the WASM tests run in one runtime (Node or a browser page),
// environment-neutral:
//   - the conformance suite through the PUBLIC API of the WASM build
//     (bindings-node/browser.mjs) with the shared JS conformance runner
//     (bindings-node/testing/conformance-runner.mjs);
//   - hostile input and the stack ceilings over the raw exports
//     (tests/hostile.mjs), on their own instance (`getRaw(fresh)`);
//   - hostile input, typed errors and a real trap with recovery through the
//     public API (tests/api-smoke.mjs).

import { runSuite } from '../../bindings-node/testing/conformance-runner.mjs';
import { runHostile } from './hostile.mjs';
import { runApiSmoke } from './api-smoke.mjs';

export async function runAll(wl, getRaw, suite, runtime) {
  let t0 = Date.now();
  const conformance = runSuite(wl, suite, runtime);
  conformance.ms = Date.now() - t0;
  t0 = Date.now();
  const hostile = await runHostile(getRaw);
  const hostileMs = Date.now() - t0;
  const api = await runApiSmoke(wl);
  return { conformance, hostile, hostileMs, api };
}

/** Human-readable lines and the failure count. */
export function report(runtime, r) {
  const lines = [];
  const c = r.conformance;
  for (const f of c.failures.slice(0, 40)) lines.push(`FAIL ${f.name}: ${String(f.message).slice(0, 400)}`);
  if (c.failures.length > 40) lines.push(`... and ${c.failures.length - 40} more`);
  lines.push(`${c.summary} (${c.ms} ms)`);
  let failed = c.failed;
  for (const [what, list] of [['hostile (raw)', r.hostile], ['hostile (API)', r.api]]) {
    let bad = 0;
    for (const h of list) {
      if (!h.ok) bad++;
      lines.push(`${h.ok ? 'ok  ' : 'FAIL'} ${what}: ${h.name}${h.ms !== undefined ? ` (${h.ms} ms)` : ''} -> ${String(h.detail).replace(/\s+/g, ' ')}`);
    }
    lines.push(`${what} (${runtime}): ${list.length - bad} passed, ${bad} failed`);
    failed += bad;
  }
  return { lines, failed };
}
