import { Invoice } from './invoice.js';

/** The sales tax rate when an invoice names none. */
export const DEFAULT_TAX_RATE = 0.08;

/** An invoice with sales tax on its subtotal. */
export class StandardInvoice extends Invoice {
  /** @param {import('./invoice.js').InvoiceFields & { taxRate?: number }} fields */
  constructor({ taxRate = DEFAULT_TAX_RATE, ...fields }) {
    super(fields);
    this.taxRate = taxRate;
  }

  /**
   * The tax on the subtotal, in cents.
   * @returns {number}
   */
  tax() {
    return Math.round(this.subtotal() * this.taxRate);
  }

  /**
   * The subtotal plus tax, in cents.
   * @returns {number}
   */
  total() {
    return this.subtotal() + this.tax();
  }
}
