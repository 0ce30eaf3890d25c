import { emptyRunView, visibleJson, visibleText, type SessionEvent, type StreamPart } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { progressLine } from './progress.js';

/** The longest echo of a tool call's arguments, in characters. */
const MAX_ECHOED_ARGUMENTS = 160;

export interface ReactTranscript {
  /** The agent's stream: its text, one line per tool call, a blank line between turns. */
  readonly onPart: (part: StreamPart) => void;
  /** The run's stored events: a denied call gets its line under the calls of its turn, in `run`'s words. */
  readonly onEvents: (events: readonly SessionEvent[]) => void;
  /** Whether the last text left the cursor mid-line. */
  readonly midLine: () => boolean;
}

/**
 * What `dagent react` shows as the agent works: its turns as they stream, each tool call with its
 * arguments as given (escaped, cut when long), and each denied call where it was made (the
 * progress line `run` shows for a node's: `⊘ react edit_file: denied (no terminal to ask)`).
 * Nothing is written under `--json`.
 */
export function reactTranscript(out: NodeJS.WritableStream, json: boolean): ReactTranscript {
  // Where the transcript stands: mid-line after streamed text, a turn begun, a turn's rule owed.
  let midLine = false;
  let turnHasOutput = false;
  let ruleOwed = false;
  // The rule between turns is written when the next turn shows something, so a denial stays under its call.
  const beginOutput = (): void => {
    if (ruleOwed) writeLine(out);
    ruleOwed = false;
    turnHasOutput = true;
  };
  const endLine = (): void => {
    if (midLine) out.write('\n');
    midLine = false;
  };
  const onPart = (part: StreamPart): void => {
    if (json) return;
    switch (part.type) {
      case 'text': {
        // The model's text is shown, never obeyed: an escape sequence in it cannot redraw the terminal.
        const text = visibleText(part.text, { multiline: true });
        if (text.length === 0) return;
        beginOutput();
        out.write(text);
        midLine = !text.endsWith('\n');
        return;
      }
      case 'tool-call':
        beginOutput();
        endLine();
        writeLine(out, `  → ${visibleText(part.name)} ${echoedArguments(part.args)}`);
        return;
      case 'finish':
        // One model response per turn: a rule between them, so each step reads on its own.
        if (!turnHasOutput) return;
        endLine();
        turnHasOutput = false;
        ruleOwed = part.reason === 'tool-calls';
        return;
      default:
        return;
    }
  };
  const onEvents = (events: readonly SessionEvent[]): void => {
    if (json) return;
    for (const event of events) {
      if (event.type !== 'approval/denied') continue;
      const line = progressLine(event, emptyRunView(event.runId));
      if (line === undefined) continue;
      endLine();
      writeLine(out, `  ${visibleText(line)}`);
    }
  };
  return { onPart, onEvents, midLine: () => midLine };
}

/** A call's arguments as JSON, strings as they are (escaped, never whitespace-collapsed), cut past `MAX_ECHOED_ARGUMENTS`. */
export function echoedArguments(args: unknown): string {
  const json = visibleJson(JSON.stringify(args) ?? '');
  return json.length > MAX_ECHOED_ARGUMENTS ? `${json.slice(0, MAX_ECHOED_ARGUMENTS - 1)}…` : json;
}
