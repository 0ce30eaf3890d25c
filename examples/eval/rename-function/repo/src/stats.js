const { sum } = require('./math.js');

/** The mean of a list of numbers (0 for none). */
function mean(values) {
  return values.length === 0 ? 0 : values.reduce(sum, 0) / values.length;
}

module.exports = { mean };
