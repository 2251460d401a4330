// CommonJS view of index.d.ts (require('workload-lens') returns the same module, via require(esm)).
export * from './index.js';
