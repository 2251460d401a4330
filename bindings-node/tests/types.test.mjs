// The TypeScript types cannot drift from the engine:
// - types/engine.d.ts is regenerated from the engine's JSON Schemas (a
//   debug build of examples/schemas.rs) and must equal the committed file;
// - the hand-written Limits and UpdateRequest types must name exactly the
//   fields the engine accepts (the engine lists them when it rejects an
//   unknown one);
// - tsc --strict --noEmit accepts testing/types-example.ts, which uses every
//   API and expects errors for wrong calls (@ts-expect-error); testing/types-kube.ts
//   does the same for workload-lens/kube (testing/tsconfig-kube.json).
// Set UPDATE_TYPES=1 to rewrite types/engine.d.ts instead of comparing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

import * as wl from 'workload-lens';
import { JOBSET_TEXT, PKG } from '../testing/fixtures.mjs';
import { OUTPUT, generate } from '../testing/gen-types.mjs';

test('types/engine.d.ts is generated from the engine\'s JSON Schemas', async () => {
  const fresh = await generate();
  if (process.env.UPDATE_TYPES) {
    writeFileSync(OUTPUT, fresh);
    return;
  }
  assert.equal(readFileSync(OUTPUT, 'utf8'), fresh,
    'types/engine.d.ts is out of date: UPDATE_TYPES=1 node --test tests/types.test.mjs');
});

/** The property names of an interface or type alias exported by index.d.ts. */
function propertiesOf(typeName, path = []) {
  const file = join(PKG, 'index.d.ts');
  const program = ts.createProgram([file], { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
  const checker = program.getTypeChecker();
  const mod = checker.getSymbolAtLocation(program.getSourceFile(file));
  const sym = checker.getExportsOfModule(mod).find((s) => s.name === typeName);
  assert.ok(sym, `index.d.ts exports ${typeName}`);
  let type = checker.getDeclaredTypeOfSymbol(sym);
  for (const step of path) {
    const p = type.getProperty(step);
    type = checker.getNonNullableType(checker.getTypeOfSymbol(p));
    if (step === '*') type = type.getStringIndexType();
    const idx = type.getStringIndexType();
    if (idx) type = checker.getNonNullableType(idx);
  }
  return type.getProperties().map((p) => p.name).sort();
}

/** The field names the engine expects, from its unknown-field error. */
function engineFields(f) {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof wl.UsageError, String(e));
    const m = /expected (?:one of )?(.*?)(?: at line|$)/.exec(e.detail);
    return [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]).sort();
  }
  assert.fail('expected an unknown-field error');
}

test('Limits names exactly the engine\'s limits', () => {
  const engine = engineFields(() => wl.limits({ notALimit: 1 }));
  assert.deepEqual(propertiesOf('Limits'), engine);
  assert.deepEqual(Object.keys(wl.defaultLimits()).sort(), engine);
});

test('UpdateRequest names exactly the engine\'s request fields', () => {
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  const top = engineFields(() => def.update(JOBSET_TEXT, { notAField: 1 }));
  assert.deepEqual(propertiesOf('UpdateRequest'), top);
  const inner = engineFields(() => def.update(JOBSET_TEXT, { components: { replicatedjob: { notAField: {} } } }));
  assert.deepEqual(propertiesOf('UpdateRequest', ['components']), inner);
});

test('ValidationResult and the definition getters match what the engine returns', () => {
  const [r] = wl.validate(wl.catalogSources()['jobset-x-k8s-io-jobset-v1alpha2.yaml']);
  assert.deepEqual(Object.keys(r).sort(), propertiesOf('ValidationResult'));
  const d = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  assert.deepEqual(Object.keys(d.gvk).sort(), propertiesOf('DefinitionGvk'));
});

test('tsc --strict --noEmit accepts the example using every API and rejects wrong calls', () => {
  const tsc = join(PKG, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(PKG, 'testing', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('tsc --strict --noEmit accepts the workload-lens/kube example (a real KubeConfig) and rejects wrong calls', () => {
  const tsc = join(PKG, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(PKG, 'testing', 'tsconfig-kube.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
