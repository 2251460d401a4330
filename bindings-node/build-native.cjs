#!/usr/bin/env node
// The package's `install` script: makes sure the native addon loads.
//
// 1. If native.cjs finds a binary (./workload-lens.<platform>.node from a
//    local build, or the per-platform package workload-lens-<platform> that
//    a published release would install as an optional dependency), nothing
//    is done.
// 2. Otherwise the addon is built from source, which needs Rust (cargo) and
//    this repository's workspace: with `napi build --platform --release`
//    when @napi-rs/cli is installed (the package's own dev setup), else with
//    `cargo build --release -p bindings-node` and a copy of the library to
//    ./workload-lens.<platform>.node (what `npm install ./bindings-node`
//    does on a fresh clone). A release build takes about 2 minutes on 2 cores.
//
// WORKLOAD_LENS_SKIP_BUILD=1 skips the build (e.g. when only the WASM build is
// used).
'use strict';

const { spawnSync, execFileSync } = require('node:child_process');
const { copyFileSync, existsSync, readFileSync } = require('node:fs');
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

function run(cmd, args) {
  console.error(`workload-lens: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: here, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} exited with ${r.status}`);
}

function main() {
  if (loads()) return;
  if (process.env.WORKLOAD_LENS_SKIP_BUILD) {
    console.error('workload-lens: no native addon for this platform; WORKLOAD_LENS_SKIP_BUILD is set, not building it');
    return;
  }
  if (!existsSync(join(here, 'Cargo.toml'))) {
    throw new Error('workload-lens: no prebuilt native addon for this platform and no Rust sources to build one');
  }
  const start = Date.now();
  const napi = join(here, 'node_modules', '.bin', process.platform === 'win32' ? 'napi.cmd' : 'napi');
  if (existsSync(napi)) {
    run(napi, ['build', '--platform', '--release', '--js', 'native.cjs', '--dts', 'native.d.ts']);
  } else {
    run('cargo', ['build', '--release', '--locked', '-p', 'bindings-node']);
    const meta = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], {
      cwd: here, encoding: 'utf8', maxBuffer: 64 << 20,
    }));
    const lib = process.platform === 'win32' ? 'bindings_node.dll'
      : process.platform === 'darwin' ? 'libbindings_node.dylib' : 'libbindings_node.so';
    copyFileSync(join(meta.target_directory, 'release', lib), join(here, `workload-lens.${platformSuffix()}.node`));
  }
  if (!loads()) throw new Error('workload-lens: the native addon was built but does not load');
  console.error(`workload-lens: native addon built in ${Math.round((Date.now() - start) / 1000)} s`);
}

try {
  main();
} catch (e) {
  console.error(e.message ?? e);
  process.exit(1);
}
