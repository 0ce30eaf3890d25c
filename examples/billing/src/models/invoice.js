/**
 * @typedef {object} Customer
 * @property {string} name
 * @property {string} email
 */

/**
 * @typedef {object} LineItem
 * @property {string} description
 * @property {number} quantity
 * @property {number} unitCents  the price of one unit, in cents
 */

/**
 * @typedef {object} InvoiceFields
 * @property {string} id
 * @property {Customer} customer
 * @property {readonly LineItem[]} lines
 * @property {string} dueDate  an ISO date, `YYYY-MM-DD`
 */

/**
 * An invoice: what a customer owes, line by line, and by when. Subclasses decide what the
 * customer pays in the end by implementing `total()`.
 * @abstract
 */
export class Invoice {
  /** @param {InvoiceFields} fields */
  constructor({ id, customer, lines, dueDate }) {
    if (new.target === Invoice) throw new TypeError('Invoice is abstract: create a StandardInvoice or a DiscountedInvoice');
    if (lines.length === 0) throw new RangeError(`invoice ${id} has no line items`);
    this.id = id;
    this.customer = customer;
    this.lines = Object.freeze([...lines]);
    this.dueDate = dueDate;
  }

  /**
   * The sum of the line items before tax and discounts, in cents.
   * @returns {number}
   */
  subtotal() {
    return this.lines.reduce((sum, line) => sum + line.quantity * line.unitCents, 0);
  }

  /**
   * What the customer pays, in cents.
   * @abstract
   * @returns {number}
   */
  total() {
    throw new Error(`${this.constructor.name} does not implement total()`);
  }

  /**
   * Whether the due date has passed on `today` (ISO dates compare as strings).
   * @param {string} today  an ISO date, `YYYY-MM-DD`
   */
  isOverdue(today) {
    return this.dueDate < today;
  }
}
