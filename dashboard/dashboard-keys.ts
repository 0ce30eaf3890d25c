/**
 * The dashboard's keys as data: each command with the keys that run it, how help writes them,
 * its line in the key hint and in the help panel, and what it does. The screen binds every
 * entry and both help lists are generated from this table, so a key cannot be bound without
 * being described, nor described without being bound.
 */

/** What the screen lets a key do; the screen implements it over its state and the run's actions. */
export interface DashboardControls {
  /** Moves the selection up (-1) or down (1) the stage list. */
  move(delta: -1 | 1): void;
  toggle(panel: 'details' | 'help'): void;
  /** Answers the pending approval (the selected node's, else the oldest). */
  answer(decision: 'approve' | 'deny'): void;
  /** Asks for confirmation the first time, cancels the run the second. */
  cancel(): void;
  /** Runs the selected node again, with every node that depends on it (`dagent rerun --from`). */
  rerun(): void;
  /** Starts writing a word for the selected running node (`dagent say`); enter sends it, escape drops it. */
  say(): void;
  /** Pauses the selected running node at its next step (`dagent pause`), or lets a paused one go on. */
  pause(): void;
  /** Leaves the screen; the run goes on. */
  detach(): void;
}

export type DashboardCommand = 'select-up' | 'select-down' | 'details' | 'approve' | 'deny' | 'cancel' | 'rerun' | 'say' | 'pause' | 'help' | 'detach';

export interface DashboardKey {
  readonly command: DashboardCommand;
  /** blessed key names (`up`, `enter`, `C-c`). */
  readonly keys: readonly string[];
  /** The keys as the help panel writes them. */
  readonly label: string;
  /** The command in the one-line key hint; commands that share a hint are listed once. */
  readonly hint: string;
  /** The help panel's line (a second line after `\n`). */
  readonly description: string;
  readonly action: (controls: DashboardControls) => void;
}

const SELECT_HINT = '↑↓/jk select';
const ANSWER_HINT = 'a/d approve/deny';
const HELP_HINT = '? help';

export const DASHBOARD_KEYS: readonly DashboardKey[] = [
  {
    command: 'select-up',
    keys: ['up', 'k'],
    label: '↑ k',
    hint: SELECT_HINT,
    description: 'select the node above (the selection follows activity until you move it)',
    action: (controls) => controls.move(-1),
  },
  { command: 'select-down', keys: ['down', 'j'], label: '↓ j', hint: SELECT_HINT, description: 'select the node below', action: (controls) => controls.move(1) },
  {
    command: 'details',
    keys: ['enter'],
    label: 'enter',
    hint: 'enter details',
    description: 'details of the selected node (dependencies, times, result or error)',
    action: (controls) => controls.toggle('details'),
  },
  {
    command: 'approve',
    keys: ['a'],
    label: 'a',
    hint: ANSWER_HINT,
    description: "approve the pending approval (the selected node's, else the oldest);\nthe answer is written to the run's log and the running process picks it up",
    action: (controls) => controls.answer('approve'),
  },
  { command: 'deny', keys: ['d'], label: 'd', hint: ANSWER_HINT, description: 'deny the pending approval, the same way', action: (controls) => controls.answer('deny') },
  {
    command: 'cancel',
    keys: ['c'],
    label: 'c c',
    hint: 'c cancel',
    description: 'cancel the run (press twice); it stays resumable with `dagent resume`',
    action: (controls) => controls.cancel(),
  },
  {
    command: 'rerun',
    keys: ['S-r'],
    label: 'R',
    // The key hint fits 80 columns as it is: `R` is found through `? help`.
    hint: HELP_HINT,
    description: 'run the selected node again, and every node after it (`dagent rerun --from`):\ntheir changes reverted, a new plan version; the run must be stopped',
    action: (controls) => controls.rerun(),
  },
  {
    command: 'say',
    keys: ['m'],
    label: 'm',
    hint: HELP_HINT,
    description: 'write a message to the selected running node (`dagent say`): it reads it\nat its next step; enter sends, escape drops it',
    action: (controls) => controls.say(),
  },
  {
    command: 'pause',
    keys: ['p'],
    label: 'p',
    hint: HELP_HINT,
    description: 'pause the selected running node at its next step (`dagent pause`), the\nothers go on; p again lets it go on',
    action: (controls) => controls.pause(),
  },
  { command: 'help', keys: ['?'], label: '?', hint: HELP_HINT, description: 'this help', action: (controls) => controls.toggle('help') },
  { command: 'detach', keys: ['q', 'C-c'], label: 'q', hint: 'q detach', description: 'quit the screen: detaches only, the run goes on', action: (controls) => controls.detach() },
];

/** The one-line key hint at the foot of the screen. */
export const KEY_HELP = [...new Set(DASHBOARD_KEYS.map((key) => key.hint))].join(' · ');

const LABEL_WIDTH = 11;

/** The help panel's list of keys. */
export function keyHelpLines(): string[] {
  return DASHBOARD_KEYS.flatMap((key) => {
    const [first = '', ...more] = key.description.split('\n');
    return [`  ${key.label.padEnd(LABEL_WIDTH)}${first}`, ...more.map((line) => `  ${' '.repeat(LABEL_WIDTH)}${line}`)];
  });
}
