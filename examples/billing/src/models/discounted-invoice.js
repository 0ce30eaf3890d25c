import { StandardInvoice } from './standard-invoice.js';

/** A standard invoice with a percentage taken off what the customer would otherwise pay. */
export class DiscountedInvoice extends StandardInvoice {
  /** @param {import('./invoice.js').InvoiceFields & { taxRate?: number, discountPercent: number }} fields */
  constructor({ discountPercent, ...fields }) {
    if (!(discountPercent > 0 && discountPercent < 100)) {
      throw new RangeError(`invoice ${fields.id}: discountPercent must be between 0 and 100, got ${discountPercent}`);
    }
    super(fields);
    this.discountPercent = discountPercent;
  }

  /**
   * The discount on the taxed total, in cents.
   * @returns {number}
   */
  discount() {
    return Math.round((super.total() * this.discountPercent) / 100);
  }

  /**
   * The taxed total less the discount, in cents.
   * @returns {number}
   */
  total() {
    return super.total() - this.discount();
  }
}
