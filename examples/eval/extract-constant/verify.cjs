// The verifier: exit 0 when both modules use VAT_RATE from src/vat.js and compute the same amounts.
const assert = require('node:assert');
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');
assert.equal(require(resolve('src/vat.js')).VAT_RATE, 0.2);
assert.equal(Math.round(require(resolve('src/prices.js')).withVat(100) * 100) / 100, 120);
assert.equal(Math.round(require(resolve('src/invoice.js')).vatOf(100) * 100) / 100, 20);
for (const file of ['src/prices.js', 'src/invoice.js']) {
  const text = readFileSync(file, 'utf8');
  assert.match(text, /VAT_RATE/, `${file} uses VAT_RATE`);
  assert.doesNotMatch(text, /\b[01]\.2\b/, `${file} still has the literal rate`);
}
