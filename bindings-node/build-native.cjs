#!/usr/bin/env node
// The package's `install` script: makes sure the native addon loads.
//
// 1. If native.cjs finds a binary (./workload-lens.<platform>.node, from a
//    local build or shipped in a tarball made by scripts/package.sh, or the
//    per-platform package workload-lens-<platform> that a published release
//    would install as an optional dependency), nothing is done.
// 2. Otherwise the addon is built from source with plain cargo (no npm
//    tools): `cargo build --release --locked -p bindings-node`, and the
//    library is copied to ./workload-lens.<platform>.node. That needs Rust
//    and this repository's workspace (`npm install ./bindings-node` from a
//    clone), and takes about 2 minutes on 2 cores.
//
// What the user sees: npm captures an install script's output and shows it
// only when the script fails, unless it runs with --foreground-scripts. So
// when stderr is not a terminal, the build writes its lines and cargo's
// progress to the terminal npm runs in (/dev/tty) when there is one. Without
// a terminal (CI) the output goes to stderr, which npm shows on failure or
// with --foreground-scripts.
//
// WORKLOAD_LENS_SKIP_BUILD=1 skips the build (e.g. when only the WASM build is
// used).
'use strict';

const { spawnSync, execFileSync } = require('node:child_process');
const { closeSync, copyFileSync, existsSync, openSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const here = __dirname;

function loads() {
  try {
    require(join(here, 'native.cjs'));
    return true;
  } catch {
    return false;
  }
}

/** The platform part of the binary's name, as napi-rs spells it. */
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    let musl = false;
    try {
      musl = !process.report.getReport().header.glibcVersionRuntime;
    } catch {
      musl = readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
    }
    const abi = arch === 'arm' ? 'gnueabihf' : 'gnu';
    return `linux-${arch}-${musl ? 'musl' : abi}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** Where the user sees output: stderr if it is a terminal, else /dev/tty if there is one, else stderr. */
function userTerminal() {
  if (process.stderr.isTTY || process.platform === 'win32') return 2;
  try {
    return openSync('/dev/tty', 'w');
  } catch {
    return 2;
  }
}

const out = userTerminal();
function say(line) {
  writeSync(out, `workload-lens: ${line}\n`);
  // Also into npm's log of the script, shown if the install fails.
  if (out !== 2) process.stderr.write(`workload-lens: ${line}\n`);
}

function run(cmd, args) {
  say(`${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: here, stdio: ['ignore', out, out], shell: process.platform === 'win32' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`workload-lens: ${cmd} exited with ${r.status}`);
}

function main() {
  if (loads()) return;
  const suffix = platformSuffix();
  if (process.env.WORKLOAD_LENS_SKIP_BUILD) {
    say(`no native addon for ${suffix}; WORKLOAD_LENS_SKIP_BUILD is set, not building it (workload-lens/wasm still works)`);
    return;
  }
  if (!existsSync(join(here, 'Cargo.toml'))) {
    throw new Error(`workload-lens: no prebuilt native addon for ${suffix} and no Rust sources to build one; `
      + 'use a tarball built for this platform by scripts/package.sh, or import workload-lens/wasm');
  }
  const start = Date.now();
  say(`no prebuilt native addon for ${suffix}: building it from source with cargo `
    + '(release; about 2 minutes on 2 cores, seconds when already built)');
  run('cargo', ['build', '--release', '--locked', '-p', 'bindings-node']);
  const meta = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], {
    cwd: here, encoding: 'utf8', maxBuffer: 64 << 20,
  }));
  const lib = process.platform === 'win32' ? 'bindings_node.dll'
    : process.platform === 'darwin' ? 'libbindings_node.dylib' : 'libbindings_node.so';
  copyFileSync(join(meta.target_directory, 'release', lib), join(here, `workload-lens.${suffix}.node`));
  if (!loads()) throw new Error('workload-lens: the native addon was built but does not load');
  say(`native addon built in ${Math.round((Date.now() - start) / 1000)} s: workload-lens.${suffix}.node`);
}

try {
  main();
} catch (e) {
  console.error(e.message ?? e);
  process.exitCode = 1;
} finally {
  if (out !== 2) closeSync(out);
}
