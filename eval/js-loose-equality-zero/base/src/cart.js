function normaliseQuantity(q) {
  if (q === undefined || q === null) return 1;
  const n = Number(q);
  if (!Number.isInteger(n) || n < 0) throw new RangeError('bad quantity: ' + q);
  return n;
}

module.exports = { normaliseQuantity };
