// The verifier: exit 0 when the rename is complete and behaviour is kept.
const assert = require('node:assert');
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const math = require(resolve('src/math.js'));
assert.equal(typeof math.add, 'function', 'src/math.js exports add()');
assert.equal(math.sum, undefined, 'src/math.js no longer exports sum()');
assert.equal(require(resolve('src/cart.js')).cartTotal([{ price: 2 }, { price: 3 }]), 5);
assert.equal(require(resolve('src/stats.js')).mean([1, 2, 3]), 2);
for (const file of ['src/cart.js', 'src/stats.js']) assert.doesNotMatch(readFileSync(file, 'utf8'), /\bsum\b/, `${file} still names sum`);
