import type { SessionEvent } from './event-types.js';

/** Told of each committed append: the events as stored, in seq order. */
export type AppendListener = (events: readonly SessionEvent[]) => void;

/**
 * The listeners of a log's appends: those of every event (the dashboard, progress lines), and
 * those of one node's events (its session, its step tracking), told only of appends that hold
 * events of their node, with those events alone. A wide stage's nodes each looked through every
 * append of every node; the appends are now split by node once.
 */
export class AppendListeners {
  readonly #all = new Set<AppendListener>();
  readonly #byNode = new Map<string | null, Set<AppendListener>>();

  add(listener: AppendListener): () => void {
    this.#all.add(listener);
    return () => this.#all.delete(listener);
  }

  /** `nodeId` null: the run's own events (no node's). */
  addForNode(nodeId: string | null, listener: AppendListener): () => void {
    let listeners = this.#byNode.get(nodeId);
    if (listeners === undefined) {
      listeners = new Set();
      this.#byNode.set(nodeId, listeners);
    }
    listeners.add(listener);
    const added = listeners;
    return () => {
      added.delete(listener);
      if (added.size === 0 && this.#byNode.get(nodeId) === added) this.#byNode.delete(nodeId);
    };
  }

  notify(stored: readonly SessionEvent[]): void {
    for (const listener of this.#all) listener(stored);
    if (this.#byNode.size === 0) return;
    const byNode = new Map<string | null, SessionEvent[]>();
    for (const event of stored) {
      if (!this.#byNode.has(event.nodeId)) continue;
      const events = byNode.get(event.nodeId);
      if (events === undefined) byNode.set(event.nodeId, [event]);
      else events.push(event);
    }
    for (const [nodeId, events] of byNode) {
      const listeners = this.#byNode.get(nodeId);
      if (listeners !== undefined) for (const listener of listeners) listener(events);
    }
  }
}
