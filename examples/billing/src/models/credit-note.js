/**
 * Money owed back to a customer (a refund or a goodwill credit). It sits in the ledger beside the
 * invoices but is never chased for payment.
 */
export class CreditNote {
  /** @param {{ id: string, customer: import('./invoice.js').Customer, amountCents: number, issuedOn: string }} fields */
  constructor({ id, customer, amountCents, issuedOn }) {
    this.id = id;
    this.customer = customer;
    this.amountCents = amountCents;
    this.issuedOn = issuedOn;
  }
}
