import { setTimeout as sleep } from 'node:timers/promises';
import { DagentError, EVENT_TYPES, assertRunHasNode, deadRunOwner, getRun, isEventType, isTerminalRunStatus, readEvents, type EventType, type Store } from '../../engine/read-face.js';
import { integerAtLeast } from '../context/cli-args.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { eventJson, formatEventLine } from '../render/index.js';

const FOLLOW_POLL_MS = 250;
const RUN_END_TYPES = new Set<string>(['run/succeeded', 'run/failed', 'run/cancelled', 'run/paused', 'plan/rejected']);

export const logCommand = defineCommand<{ run: string; node?: string; type?: string[]; follow?: boolean; since?: number }>({
  examples: [
    ['$0 log r-7f3a --type node/', 'node starts, successes and failures'],
    ['$0 log r-7f3a --node edit-a --json | jq .type', 'one node\'s events as JSON lines'],
    ['$0 log r-7f3a -f', 'follow a running run'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('node', { type: 'string', requiresArg: true, describe: 'only this node (use "-" for run-level events)' })
      .option('type', { type: 'string', array: true, describe: 'only these event types; a prefix like "node/" matches a family' })
      .option('since', { requiresArg: true, coerce: integerAtLeast('--since', 0), describe: 'only events after this seq' })
      .option('follow', { alias: 'f', type: 'boolean', describe: 'keep printing new events until the run ends' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    const types = expandTypes(args.type);
    const nodeId = args.node === '-' ? null : args.node;
    const print = (events: Awaited<ReturnType<typeof readEvents>>): void => {
      for (const event of events) writeLine(context.io.stdout, context.json ? eventJson(event) : formatEventLine(event));
    };
    let lastSeq = args.since ?? 0;
    let ended = false;
    for (;;) {
      const events = await readEvents(db, run.id, { fromSeq: lastSeq + 1 });
      if (events.length > 0) lastSeq = events.at(-1)!.seq;
      ended ||= events.some((event) => RUN_END_TYPES.has(event.type));
      print(events.filter((event) => (nodeId === undefined || event.nodeId === nodeId) && (types === undefined || types.has(event.type))));
      // Nothing new: the run may have ended before the events read (`--since` past its end), or its process may be gone.
      if (args.follow === true && !ended && events.length === 0) ended = await stoppedWriting(db, run.id, (line) => writeLine(context.io.stderr, line));
      if (!args.follow || ended || context.io.interrupt.aborted) {
        // A node with no events may be one that has not run yet; one the run never had is a typo.
        if (typeof nodeId === 'string') await assertRunHasNode(db, run.id, nodeId);
        return 0;
      }
      await sleep(FOLLOW_POLL_MS, undefined, { signal: context.io.interrupt }).catch(() => undefined);
    }
  },
});

/** Whether a followed run will write no more: it ended, paused, or its process is gone (said on stderr, with how to go on). */
async function stoppedWriting(db: Store['db'], runId: string, say: (line: string) => void): Promise<boolean> {
  const run = await getRun(db, runId);
  // Ended, or paused at its budget: no process writes to it until a resume.
  if (isTerminalRunStatus(run.status) || run.status === 'paused') return true;
  const gone = await deadRunOwner(db, run);
  if (gone === undefined) return false;
  say(`dagent: run ${runId} is ${run.status}, but its process (pid ${gone.pid}) is gone: \`dagent resume ${runId}\` goes on with it`);
  return true;
}

function expandTypes(requested: readonly string[] | undefined): Set<EventType> | undefined {
  if (requested === undefined || requested.length === 0) return undefined;
  const types = new Set<EventType>();
  for (const entry of requested.flatMap((value) => value.split(','))) {
    const matches = entry.endsWith('/') ? EVENT_TYPES.filter((type) => type.startsWith(entry)) : isEventType(entry) ? [entry] : [];
    if (matches.length === 0) throw new DagentError(`unknown event type "${entry}"; known: ${EVENT_TYPES.join(', ')}`);
    for (const type of matches) types.add(type);
  }
  return types;
}
