// Generates types/engine.d.ts: the TypeScript types of the engine's results,
// compiled by json-schema-to-typescript from the JSON Schemas the engine
// derives from its Rust types (printed by the binding crate's `schemas`
// example, target/debug/examples/schemas; bindings-python/tools/gen_types.py makes Python's
// types from the same output). tests/types.test.mjs regenerates it and compares it
// with the committed file; `node testing/gen-types.mjs` rewrites it.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile } from 'json-schema-to-typescript';
import { PKG, REPO } from './fixtures.mjs';

export const OUTPUT = join(PKG, 'types', 'engine.d.ts');

/** `{TypeName: schema}` from the engine: the binding crate's example, built
 * as the workspace's tests build it (scripts/debug-build.sh, a no-op after
 * the rust stage; `cargo run -p workload-lens-binding` would compile the
 * engine again for another feature set), then run. */
export function engineSchemas() {
  execFileSync('bash', ['scripts/debug-build.sh'], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
  const target = process.env.CARGO_TARGET_DIR || join(REPO, 'target');
  const out = execFileSync(join(target, 'debug', 'examples', 'schemas'), [], {
    cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out);
}

// The engine's `Error` type is `EngineError` here (`Error` is JavaScript's).
const RENAME = { Error: 'EngineError' };

/** A `$ref` with sibling keywords (schemars puts a property's description
 * there) would make json-schema-to-typescript emit a numbered copy of the
 * type (`Location1`): keep the reference alone. Also applies RENAME. */
function normalize(v) {
  if (Array.isArray(v)) return v.map(normalize);
  if (v === null || typeof v !== 'object') return v;
  if (typeof v.$ref === 'string') {
    const name = v.$ref.replace('#/$defs/', '');
    return { $ref: `#/$defs/${RENAME[name] ?? name}` };
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
}

/** One schema holding every type as a definition (shared ones once). */
export function mergeSchemas(input) {
  const schemas = normalize(input);
  const defs = {};
  const add = (name, schema, from) => {
    const strip = ({ title: _t, ...rest }) => JSON.stringify(rest);
    if (name in defs && strip(defs[name]) !== strip(schema)) {
      throw new Error(`type ${name} differs between schemas (${from})`);
    }
    defs[name] = schema;
  };
  for (const [root, schema] of Object.entries(schemas)) {
    const { $defs = {}, $schema: _s, title: _t, ...body } = schema;
    for (const [n, d] of Object.entries($defs)) add(RENAME[n] ?? n, d, root);
    add(root, { ...body, title: root }, root);
  }
  for (const [n, d] of Object.entries(defs)) if (!d.title) defs[n] = { ...d, title: n };
  return {
    title: 'EngineTypes',
    description: 'Every engine result type (not a value itself).',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.keys(schemas).map((n) => [n, { $ref: `#/$defs/${n}` }])),
    $defs: defs,
  };
}

export async function generate(schemas = engineSchemas()) {
  const ts = await compile(mergeSchemas(schemas), 'EngineTypes', {
    bannerComment: '/* Generated from the engine\'s JSON Schemas by bindings-node/testing/gen-types.mjs: do not edit. */',
    additionalProperties: false,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: true,
    style: { singleQuote: true, printWidth: 110 },
  });
  return ts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(OUTPUT, await generate());
  console.log(`wrote ${OUTPUT}`);
}
