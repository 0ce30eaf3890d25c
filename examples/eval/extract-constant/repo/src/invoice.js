/** The VAT on a net amount. */
function vatOf(net) {
  return net * 0.2;
}

module.exports = { vatOf };
