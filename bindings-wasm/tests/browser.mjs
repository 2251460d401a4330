// The WASM tests in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): serves the repository with `python3 -m http.server` bound
// to 127.0.0.1, opens tests/page.html (which runs tests/all.mjs), then checks
// the page still answers. Writes target/conformance/wasm-chromium.json.
// Exit code 1 on any failure.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { report } from './all.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNTIME = 'wasm-chromium';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function waitForServer(url, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > end) throw new Error(`static server did not start: ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const port = await freePort();
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', ROOT], {
  stdio: ['ignore', 'ignore', 'ignore'],
});
const profile = mkdtempSync(join(tmpdir(), 'wl-chromium-'));
let ctx;
let failed = 1;
try {
  const origin = `http://127.0.0.1:${port}`;
  await waitForServer(`${origin}/bindings-wasm/tests/page.html`);
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${origin}/bindings-wasm/tests/page.html`);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 600_000 });
  const r = await page.evaluate(() => window.__result);
  if (r.fatal) throw new Error(`the test page failed: ${r.fatal}`);
  // The page survived everything: it still runs script and renders.
  const alive = await page.evaluate(() => document.getElementById('status').textContent);
  const out = join(ROOT, 'target', 'conformance', `${RUNTIME}.json`);
  mkdirSync(dirname(out), { recursive: true });
  const sorted = Object.fromEntries(Object.entries(r.conformance.results).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(out, JSON.stringify(sorted, null, 2) + '\n');
  const rep = report(RUNTIME, r);
  console.log(rep.lines.join('\n'));
  console.log(`${alive === 'done' ? 'ok  ' : 'FAIL'} page usable afterwards (status: ${alive})`);
  for (const e of errors) console.log(`page error: ${e}`);
  failed = rep.failed + (alive === 'done' ? 0 : 1);

  // The README's plain <script type="module"> example, as a user would
  // serve it: the package under ./node_modules/workload-lens/.
  const html = readFileSync(join(ROOT, 'bindings-wasm', 'README.md'), 'utf8').match(/```html\n([\s\S]*?)```/)?.[1];
  const ex = await ctx.newPage();
  const logs = [];
  ex.on('console', (m) => logs.push(m.text()));
  await ex.route(`${origin}/readme-example/index.html`, (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html><body>${html}</body>` }));
  await ex.route(`${origin}/readme-example/node_modules/workload-lens/**`, (r) => {
    const rest = new URL(r.request().url()).pathname.replace('/readme-example/node_modules/workload-lens/', '');
    r.fulfill({ path: join(ROOT, 'bindings-node', rest) });
  });
  await ex.goto(`${origin}/readme-example/index.html`);
  let text = '';
  try {
    await ex.waitForFunction(() => /^\d+ GPUs$/.test(document.body.textContent), null, { timeout: 30_000 });
    text = await ex.evaluate(() => document.body.textContent);
  } catch (e) {
    text = `(no result: ${e.message.split('\n')[0]}; console: ${logs.join(' | ')})`;
  }
  const exampleOk = html !== undefined && text === '2 GPUs' && logs.includes('[42]');
  console.log(`${exampleOk ? 'ok  ' : 'FAIL'} README <script type="module"> example: ${text}, console ${JSON.stringify(logs)}`);
  if (!exampleOk) failed += 1;
} finally {
  await ctx?.close();
  server.kill();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
