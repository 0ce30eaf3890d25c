/** A message to one recipient. */
export interface Message {
  readonly to: string;
  readonly subject: string;
  readonly body: string;
}

/** What a channel says about a message it was given; other services read receipts, keep the fields. */
export interface Receipt {
  readonly channel: string;
  readonly to: string;
  readonly accepted: boolean;
  readonly reason?: string;
}

/** One way of reaching people. Every channel implements `send()`. */
export interface Channel {
  readonly name: string;
  send(message: Message): Receipt;
}
