const { sum } = require('./math.js');

/** What a cart's items cost together. */
function cartTotal(items) {
  return items.reduce((running, item) => sum(running, item.price), 0);
}

module.exports = { cartTotal };
