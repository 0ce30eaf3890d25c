import { countTokensOfAsync, messagesTokens, messageTexts } from '../model/token-estimate.js';
import type { EventLog } from './event-log.js';
import type { EventDraft, EventType, SessionEvent, SurfaceOp } from './event-types.js';
import type { ModelMessage, ToolCall, UserModelMessage } from '../model/model-message.js';
import { isStopResult } from './tool-result-meta.js';
import { applyToSurface, eventToMessage, isSurfaceEvent, type SurfaceEntry, type SurfaceEvent } from './surface.js';

/** A tool call of the surface without a result of its own (`Session.openToolCalls`). */
export interface OpenToolCall extends ToolCall {
  /** The surface position of the result the run's stop gave it, which its next result replaces. */
  readonly replaces?: number;
}

/** A tool result's `surfaceOp` when it takes the place of the result at `position` (one the run's stop gave its call). */
export function replacingOnSurface(position: number | undefined): { readonly surfaceOp?: SurfaceOp } {
  return position === undefined ? {} : { surfaceOp: { op: 'replace', start: position, end: position } };
}

/** What an interrupted tool call's result says to the model. */
export const INTERRUPTED_TOOL_RESULT = 'interrupted: the process stopped before this tool call returned; its effect is unknown. Check the state before retrying it.';

/**
 * One node's surface over the run's log (or the run-level surface when `nodeId` is null).
 * It mirrors every event of its node appended through the shared `EventLog`, in seq order, and
 * derives model messages from the surface incrementally: an append costs O(that event); a
 * `surfaceOp: replace` bumps `replaceGeneration`, and the next derivation rebuilds.
 */
export class Session {
  readonly log: EventLog;
  readonly nodeId: string | null;
  readonly #surface: SurfaceEntry[] = [];
  readonly #messages: ModelMessage[] = [];
  readonly #messageTokens: number[] = [];
  #derivedGeneration = -1;
  #derivedCount = 0;
  #tokenTotal = 0;
  #replaceGeneration = 0;
  #lastSeq = 0;
  #lastStep = 0;
  #lastTurn = 0;
  readonly #answers: SessionEvent<'assistant/message'>[] = [];
  #eventCount = 0;
  #rebuilds = 0;
  #messagesDerived = 0;
  #textsCounted = 0;
  readonly #unsubscribe: () => void;
  /** Whether messages reaching the surface are counted as they arrive (`countArrivingMessages`). */
  #countingArrivals = false;
  /** Texts waiting to be sent for counting (one request per turn of the event loop). */
  #toCount: string[] = [];
  /** Texts sent for counting, not answered yet. */
  readonly #beingCounted = new Set<string>();
  /** Counts made ahead, off this thread, by text, until a derivation takes them. */
  readonly #countedAhead = new Map<string, number>();
  readonly #counting = new Set<Promise<void>>();

  /** Events before this seq are not part of this surface (an earlier attempt of the node); unknown while its marker is held (`opening`). */
  #fromSeq: number | undefined;
  /**
   * The node's first surface: no earlier attempt of it began one, so the log holds no step or
   * compaction of the node before `fromSeq` (`startingAt` is told so by whoever knows the run).
   */
  readonly firstOfNode: boolean;

  private constructor(log: EventLog, nodeId: string | null, fromSeq: number | undefined, firstOfNode = false) {
    this.log = log;
    this.nodeId = nodeId;
    this.#fromSeq = fromSeq;
    this.firstOfNode = firstOfNode;
    this.#unsubscribe = log.onNodeAppend(nodeId, (events) => {
      for (const event of events) this.#apply(event);
    });
  }

  /**
   * Opens a node's surface, folding its stored events. `fromSeq` starts the surface at a later
   * point of the node's log: a node restarted from its beginning gets a fresh surface while its
   * earlier attempt stays in the log.
   */
  static async open(log: EventLog, nodeId: string | null, options: { fromSeq?: number } = {}): Promise<Session> {
    const fromSeq = options.fromSeq ?? 0;
    const session = new Session(log, nodeId, fromSeq);
    for (const event of await log.read({ nodeId, fromSeq })) session.#apply(event);
    return session;
  }

  /**
   * A fresh surface that begins at `first`, the event of its node the caller has just appended
   * through `log` (an attempt's `node/snapshotted`): nothing before it belongs to the surface and
   * nothing of the node came after it, so the log is not read back.
   */
  static startingAt(log: EventLog, first: SessionEvent, options: { firstOfNode?: boolean } = {}): Session {
    const session = new Session(log, first.nodeId, first.seq, options.firstOfNode ?? false);
    session.#apply(first);
    return session;
  }

  /**
   * A fresh surface that begins at its attempt's `marker` (`node/snapshotted`), which `log` holds
   * (`EventLog.hold`; an invalid one throws here) to store with the node's first append (its
   * instruction, most often: one write where there were two); the surface begins there.
   */
  static opening(log: EventLog, marker: EventDraft<'node/snapshotted'> & { readonly nodeId: string }, options: { firstOfNode?: boolean } = {}): Session {
    const session = new Session(log, marker.nodeId, undefined, options.firstOfNode ?? false);
    log.hold(marker);
    return session;
  }

  /** Whether the surface's first event is stored: false for an `opening` one until its marker goes with the node's first append. */
  get begun(): boolean {
    return this.#fromSeq !== undefined;
  }

  /** The seq the surface begins at; asked before its held marker is stored (`begun`), it throws. */
  get fromSeq(): number {
    if (this.#fromSeq === undefined) throw new Error(`the surface of node ${String(this.nodeId)} has not begun: its marker is not stored yet`);
    return this.#fromSeq;
  }

  /** Appends an event of this node; turn and step default to the latest seen. */
  async append<T extends EventType>(draft: EventDraft<T>): Promise<SessionEvent<T>> {
    return this.log.append({ turn: this.#lastTurn, step: this.#lastStep, ...draft, nodeId: this.nodeId } as EventDraft<T>);
  }

  get replaceGeneration(): number {
    return this.#replaceGeneration;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The highest step and turn any event of this surface carries; the agent resumes after them. */
  get lastStep(): number {
    return this.#lastStep;
  }

  /** The model calls of this surface that were answered (`assistant/message`): the steps taken, whatever step numbers unanswered requests used. */
  get answeredCalls(): number {
    return this.#answers.length;
  }

  /** Every answer of this surface's model since `fromSeq`, in order, also those a compaction folded away. */
  answers(): readonly SessionEvent<'assistant/message'>[] {
    return this.#answers;
  }

  get lastTurn(): number {
    return this.#lastTurn;
  }

  get eventCount(): number {
    return this.#eventCount;
  }

  /** The events that currently form messages, in message order. */
  surface(): readonly SurfaceEvent[] {
    return this.#surface.map((entry) => entry.event);
  }

  /**
   * Provider-neutral messages of the current surface. The returned array is a live, read-only
   * view: it stays valid and grows with later appends until the next replace. Copy it to keep it.
   */
  deriveMessages(): readonly ModelMessage[] {
    if (this.#derivedGeneration !== this.#replaceGeneration) {
      this.#messages.length = 0;
      this.#messageTokens.length = 0;
      this.#tokenTotal = 0;
      this.#derivedCount = 0;
      this.#derivedGeneration = this.#replaceGeneration;
      this.#rebuilds += 1;
    }
    if (this.#derivedCount === this.#surface.length) return this.#messages;
    const derived: ModelMessage[] = [];
    for (; this.#derivedCount < this.#surface.length; this.#derivedCount += 1) derived.push(eventToMessage(this.#surface[this.#derivedCount]!.event));
    // Counted together: one round trip to the tokenizer's thread for a step's new messages, none
    // for the texts counted as they arrived.
    const { tokens: counts, counted } = messagesTokens(derived, this.#countedAhead);
    this.#textsCounted += counted;
    if (this.#countedAhead.size > 0 && this.#counting.size === 0 && this.#toCount.length === 0) this.#countedAhead.clear();
    for (const [index, message] of derived.entries()) {
      this.#messages.push(message);
      this.#messageTokens.push(counts[index]!);
      this.#tokenTotal += counts[index]!;
      this.#messagesDerived += 1;
    }
    return this.#messages;
  }

  /**
   * From now on (and for what the surface holds that was not derived yet), each message that
   * reaches the surface has its texts counted as it arrives, without blocking this thread (the
   * tokenizer's own thread works while this one goes on). An agent's derivations then count
   * nothing themselves once `countsReady` resolved: a run's nodes no longer stop the whole process
   * for each other's counts. Opt-in: a surface read for other reasons counts nothing.
   */
  countArrivingMessages(): void {
    if (this.#countingArrivals) return;
    this.#countingArrivals = true;
    for (let index = this.#derivedCount; index < this.#surface.length; index += 1) this.#countAhead(eventToMessage(this.#surface[index]!.event));
  }

  /** Resolves once the counts started for arrived messages are in (a failed one is left for the derivation to count). */
  async countsReady(): Promise<void> {
    this.#sendCounts();
    while (this.#counting.size > 0) await Promise.all(this.#counting);
  }

  /**
   * Starts counting, off this thread, the texts of a message about to be appended (an
   * instruction, a tool's result): the count runs while the append is stored.
   */
  countAhead(texts: readonly string[]): void {
    const fresh = texts.filter((text) => text.length > 0 && !this.#countedAhead.has(text) && !this.#beingCounted.has(text));
    if (fresh.length === 0) return;
    if (this.#toCount.length === 0) queueMicrotask(() => this.#sendCounts());
    this.#toCount.push(...fresh);
  }

  #countAhead(message: ModelMessage): void {
    this.countAhead(messageTexts(message));
  }

  /** One request for every text that arrived since the last: the events of one append arrive together. */
  #sendCounts(): void {
    if (this.#toCount.length === 0) return;
    const texts = [...new Set(this.#toCount)];
    this.#toCount = [];
    for (const text of texts) this.#beingCounted.add(text);
    const counting = countTokensOfAsync(texts).then(
      (counts) => texts.forEach((text, index) => this.#countedAhead.set(text, counts[index]!)),
      () => undefined,
    );
    void counting.finally(() => texts.forEach((text) => this.#beingCounted.delete(text)));
    this.#counting.add(counting);
    void counting.finally(() => this.#counting.delete(counting));
  }

  /** How much derivation work was done: full rebuilds, messages derived in all, and texts the derivations counted themselves (not counted ahead). */
  derivationStats(): { readonly rebuilds: number; readonly messagesDerived: number; readonly textsCounted: number } {
    return { rebuilds: this.#rebuilds, messagesDerived: this.#messagesDerived, textsCounted: this.#textsCounted };
  }

  /** Estimated tokens of the derived messages (system prompt and tools not included). */
  messageTokens(): number {
    this.deriveMessages();
    return this.#tokenTotal;
  }

  /** The latest runtime-context message still on the surface, if any. */
  lastRuntimeContext(): SessionEvent<'user/message'> | undefined {
    for (let index = this.#surface.length - 1; index >= 0; index -= 1) {
      const event = this.#surface[index]!.event;
      if (event.type === 'user/message' && event.payload.source === 'runtime-context') return event;
    }
    return undefined;
  }

  /**
   * Tool calls of the surface that have no result of their own: left behind by a crash between
   * call and result, or stopped by the run's cancel or pause (`isStopResult`; `replaces` is the
   * surface position of that result, which the call's next result replaces).
   */
  openToolCalls(): OpenToolCall[] {
    const open = new Map<string, OpenToolCall>();
    for (const { position, event } of this.#surface) {
      if (event.type === 'assistant/message') for (const call of event.payload.toolCalls) open.set(call.id, call);
      else if (event.type !== 'tool/result') continue;
      else if (!isStopResult(event.payload)) open.delete(event.payload.toolCallId);
      else {
        const call = open.get(event.payload.toolCallId);
        if (call !== undefined) open.set(call.id, { ...call, replaces: position });
      }
    }
    return [...open.values()];
  }

  /**
   * Closes every open tool call with a recorded "interrupted" result, so the history is valid
   * for every provider (none accepts a tool call without its result). Returns how many it closed.
   * `content`: what the model reads (by default, that the call's effect is unknown).
   */
  async closeInterruptedToolCalls(content: string = INTERRUPTED_TOOL_RESULT): Promise<number> {
    const open = this.openToolCalls();
    for (const call of open) {
      await this.append({
        type: 'tool/result',
        ...replacingOnSurface(call.replaces),
        payload: {
          toolCallId: call.id,
          name: call.name,
          content,
          isError: true,
          meta: { outcome: 'interrupted', truncated: false, originalLength: content.length, args: call.args },
        },
      });
    }
    return open.length;
  }

  /** The node's instruction: the first instruction message on the surface. */
  instruction(): UserModelMessage | undefined {
    return this.deriveMessages().find((message): message is UserModelMessage => message.role === 'user' && message.source === 'instruction');
  }

  /** Stops mirroring the log. */
  close(): void {
    this.#unsubscribe();
  }

  #apply(event: SessionEvent): void {
    if (this.#fromSeq === undefined) {
      // An opening surface begins at its marker, stored ahead of the node's first append.
      if (event.type !== 'node/snapshotted') return;
      this.#fromSeq = event.seq;
    }
    if (event.seq <= this.#lastSeq || event.seq < this.#fromSeq) return;
    this.#lastSeq = event.seq;
    this.#eventCount += 1;
    if (event.step > this.#lastStep) this.#lastStep = event.step;
    if (event.turn > this.#lastTurn) this.#lastTurn = event.turn;
    if (event.type === 'assistant/message') this.#answers.push(event);
    if (!isSurfaceEvent(event)) return;
    if (applyToSurface(this.#surface, event)) this.#replaceGeneration += 1;
    if (this.#countingArrivals) this.#countAhead(eventToMessage(event));
  }
}
