// Where the bytes of a .wasm go: code size per crate (from the name section)
// and the data segments. Run on the module before wasm-opt, which drops the
// names:  node bindings-wasm/tools/sizes.mjs target/wasm/wasm32-unknown-unknown/wasm/workload_lens_wasm.wasm
import { readFileSync } from 'node:fs';

const buf = readFileSync(process.argv[2]);
let p = 8;
const u32 = () => {
  let r = 0, s = 0, b;
  do { b = buf[p++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80);
  return r >>> 0;
};
const sections = {};
let imports = 0;
let bodies = [];
let names = new Map();
let data = 0;
while (p < buf.length) {
  const id = buf[p++];
  const size = u32();
  const start = p;
  const end = p + size;
  if (id === 0) {
    const nl = u32();
    const name = buf.toString('utf8', p, p + nl);
    p += nl;
    sections[`custom ${name}`] = size;
    if (name === 'name') {
      while (p < end) {
        const sub = buf[p++];
        const len = u32();
        const subEnd = p + len;
        if (sub === 1) {
          const n = u32();
          for (let i = 0; i < n; i++) {
            const idx = u32();
            const l = u32();
            names.set(idx, buf.toString('utf8', p, p + l));
            p += l;
          }
        }
        p = subEnd;
      }
    }
  } else {
    const label = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'][id] ?? `id${id}`;
    sections[label] = size;
    if (id === 2) {
      const n = u32();
      for (let i = 0; i < n; i++) {
        const ml = u32(); p += ml;
        const fl = u32(); p += fl;
        const kind = buf[p++];
        if (kind === 0) { u32(); imports++; }
        else if (kind === 1) { p++; const f = buf[p++]; u32(); if (f & 1) u32(); }
        else if (kind === 2) { const f = buf[p++]; u32(); if (f & 1) u32(); }
        else if (kind === 3) { p += 2; }
      }
    }
    if (id === 10) {
      const n = u32();
      for (let i = 0; i < n; i++) {
        const s = u32();
        bodies.push([imports + i, s]);
        p += s;
      }
    }
    if (id === 11) data = size;
  }
  p = end;
}
const total = buf.length;
console.log(`total ${total} bytes`);
for (const [k, v] of Object.entries(sections).sort((a, b) => b[1] - a[1])) console.log(`  section ${k.padEnd(24)} ${String(v).padStart(9)}  ${(100 * v / total).toFixed(1)}%`);
const byCrate = new Map();
const crateOf = (n) => {
  // v0-mangled Rust names (_R...): the first crate root is `C<disambiguator>_<len><name>`
  // or `C<len><name>`.
  const m = n.match(/C(?:s[0-9A-Za-z]*_)?(\d+)([A-Za-z_][A-Za-z0-9_]*)/);
  if (m) return m[2].slice(0, Number(m[1]));
  return n.startsWith('__wbg') || n.startsWith('__wbindgen') || n.startsWith('wasm') ? 'wasm-bindgen glue' : n.slice(0, 30) || '(unnamed)';
};
for (const [idx, size] of bodies) {
  const c = crateOf(names.get(idx) ?? '');
  byCrate.set(c, (byCrate.get(c) ?? 0) + size);
}
console.log('code by crate (first path segment of the function name):');
for (const [c, s] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${c.padEnd(28)} ${String(s).padStart(9)}`);
console.log('largest functions:');
for (const [idx, s] of bodies.sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${String(s).padStart(7)}  ${(names.get(idx) ?? `#${idx}`).slice(0, 140)}`);
