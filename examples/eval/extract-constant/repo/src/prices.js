/** A net price with VAT added. */
function withVat(net) {
  return net * 1.2;
}

module.exports = { withVat };
