// CommonJS entry (`require('workload-lens')` in Node): the same module as
// index.mjs, loaded with require(esm) (Node 20.19+ or 22.12+, see `engines`).
'use strict';

module.exports = require('./index.mjs');
