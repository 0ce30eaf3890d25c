const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/**
 * `123456` → `$1,234.56`; negative amounts as `-$10.00`.
 * @param {number} cents
 */
export function formatCents(cents) {
  if (!Number.isInteger(cents)) throw new TypeError(`an amount must be a whole number of cents, got ${cents}`);
  return USD.format(cents / 100);
}
