// The CommonJS view of the types (require('workload-lens')).
import wl = require('workload-lens');

export const gpus: number = wl.resolve('x').totals.resources.gpu;
export const d: wl.Definition | null = wl.lookup('v1', 'X');
// @ts-expect-error: the expression is a string
wl.evaluate(1);
