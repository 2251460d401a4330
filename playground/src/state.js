// The playground state in the URL fragment: `#s=` + base64url(deflate-raw(JSON)).
// Only the browser's CompressionStream is used (no dependency). The fragment
// never reaches a server.

const toB64url = (bytes) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

const fromB64url = (text) => {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
};

async function pipe(bytes, stream) {
  const res = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await res.arrayBuffer());
}

/** State object -> fragment text (without '#'). */
export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify({ v: 1, ...state }));
  return `s=${toB64url(await pipe(json, new CompressionStream('deflate-raw')))}`;
}

/** Fragment text (with or without '#') -> state object, or null when there is none. */
export async function decodeState(fragment) {
  const m = /(?:^#?|&)s=([A-Za-z0-9_-]+)/.exec(fragment ?? '');
  if (!m) return null;
  const bytes = await pipe(fromB64url(m[1]), new DecompressionStream('deflate-raw'));
  const state = JSON.parse(new TextDecoder().decode(bytes));
  if (!state || typeof state !== 'object' || state.v !== 1) throw new Error('unknown state format');
  return state;
}
