import type { Place } from './command-places.js';
import type { Findings } from './command-findings.js';
import type { ShellWord } from './shell-syntax.js';

/** Global options of git that take a value as the next word. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix']);
/** Global options that point git at other repositories or programs. */
const REDIRECTING_OPTIONS = /^--(?:git-dir|work-tree|namespace|exec-path|config-env|super-prefix)/;

/** Options that make an otherwise read-only subcommand write a file or run a program. */
const WRITING_OPTIONS = /^(?:--output(?:=|$)|-O|--open-files-in-pager)/;

const BRANCH_LISTING_FLAG = /^(?:-a|-r|-v|-vv|--all|--remotes|--verbose|--list|-l|--show-current|--merged|--no-merged|--contains|--no-contains|--points-at|--sort=.*|--format=.*|--color.*|--no-color|--column.*)$/;
const BRANCH_LISTING_WITH_OPERAND = /^(?:--list|-l|--contains|--no-contains|--merged|--no-merged|--points-at)$/;

/** Subcommands that only read, with a test of their arguments where some forms change things. */
const READ_ONLY_SUBCOMMANDS: Readonly<Record<string, (args: readonly string[]) => boolean>> = {
  status: () => true,
  diff: () => true,
  log: () => true,
  show: () => true,
  blame: () => true,
  annotate: () => true,
  shortlog: () => true,
  describe: () => true,
  grep: () => true,
  'ls-files': () => true,
  'ls-tree': () => true,
  'rev-parse': () => true,
  'rev-list': () => true,
  'cat-file': () => true,
  'merge-base': () => true,
  'show-ref': () => true,
  'for-each-ref': () => true,
  'name-rev': () => true,
  'count-objects': () => true,
  whatchanged: () => true,
  version: () => true,
  help: () => true,
  branch: (args) => {
    const listing = args.some((arg) => BRANCH_LISTING_WITH_OPERAND.test(arg));
    return args.every((arg) => BRANCH_LISTING_FLAG.test(arg) || (listing && !arg.startsWith('-')));
  },
  tag: (args) => args.length === 0 || args.some((arg) => /^(?:-l|--list)$/.test(arg)) && !args.some((arg) => /^-(?:d|f|a|s|m|u)$|^--(?:delete|force|annotate|sign|message)/.test(arg)),
  remote: (args) => args.length === 0 || /^(?:-v|--verbose|show|get-url)$/.test(args[0]!),
  stash: (args) => /^(?:list|show)$/.test(args[0] ?? ''),
  reflog: (args) => args.length === 0 || args[0] === 'show' || args[0]!.startsWith('-'),
  config: (args) => args.some((arg) => /^(?:--get|--get-all|--get-regexp|--list|-l|--get-urlmatch)$/.test(arg)),
  worktree: (args) => args[0] === 'list',
};

/**
 * Judges `git …`: the read-only subcommands (status, diff, log, show, …) are safe; `push` is at
 * least risky, and destroys remote history with `--force`, `-f`, `+ref`, `--mirror` or deletes
 * (`--delete`, `:ref`), which is dangerous; `-c` and `--git-dir` style options make it risky.
 */
export function checkGitCommand(args: readonly ShellWord[], findings: Findings, placeOf: (word: ShellWord) => Place): void {
  let index = 0;
  for (; index < args.length; index += 1) {
    const word = args[index]!;
    const text = word.text;
    if (!text.startsWith('-')) break;
    if (text === '-c' || text.startsWith('--config-env')) findings.add('risky', 'git -c sets configuration for the call, which can name programs to run');
    else if (REDIRECTING_OPTIONS.test(text)) findings.add('risky', `git ${text} points git at another repository or program`);
    if (text === '-C') {
      const folder = args[index + 1];
      if (folder !== undefined) {
        const place = placeOf(folder);
        if (place !== 'inside' && place !== 'root') findings.add('risky', `git -C ${folder.text} works on a repository outside the workspace`);
      }
    }
    if (VALUE_OPTIONS.has(text)) index += 1;
  }
  const subcommandWord = args[index];
  if (subcommandWord === undefined) return;
  if (subcommandWord.expanded) {
    findings.add('risky', 'the git subcommand is only known when it runs');
    return;
  }
  const subcommand = subcommandWord.text;
  const rest = args.slice(index + 1);
  const texts = rest.map((word) => word.text);
  if (rest.some((word) => word.expanded)) findings.add('risky', `git ${subcommand} expands variables or substitutions`);
  if (subcommand === 'push') {
    checkPush(texts, findings);
    return;
  }
  if (REMOTE_SUBCOMMANDS.has(subcommand) || (subcommand === 'remote' && /^(?:update|prune|set-head)$/.test(texts[0] ?? '')) || (subcommand === 'submodule' && /^(?:update|sync)$/.test(texts[0] ?? ''))) {
    findings.reachesRemote(`git ${subcommand} works with a remote`);
    return;
  }
  const readOnly = READ_ONLY_SUBCOMMANDS[subcommand];
  if (readOnly === undefined || !readOnly(texts)) {
    findings.add('risky', `git ${subcommand}${texts.length > 0 ? ` ${texts[0]}` : ''} changes the repository or works with a remote`);
    return;
  }
  if (texts.some((text) => WRITING_OPTIONS.test(text))) findings.add('risky', `git ${subcommand} with --output or a pager option writes a file or runs a program`);
  for (const word of rest) {
    if (!word.text.startsWith('--output=')) continue;
    const place = placeOf({ ...word, text: word.text.slice('--output='.length) });
    if (place === 'outside' || place === 'above' || place === 'device' || place === 'protected') {
      findings.add('dangerous', `git ${subcommand} ${word.text} writes outside the workspace or into a protected folder`);
    }
  }
}

/** Subcommands that talk to a remote repository. */
const REMOTE_SUBCOMMANDS: ReadonlySet<string> = new Set(['fetch', 'pull', 'clone', 'ls-remote', 'send-email', 'request-pull', 'archive-remote', 'svn', 'p4']);

function checkPush(args: readonly string[], findings: Findings): void {
  findings.reachesRemote('git push publishes commits to a remote');
  for (const arg of args) {
    if (/^--force(?:-with-lease|-if-includes)?(?:=|$)/.test(arg) || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(arg)) {
      findings.add('dangerous', `git push ${arg} overwrites the remote's history`);
    } else if (arg === '--mirror') {
      findings.add('dangerous', 'git push --mirror overwrites and deletes every ref of the remote');
    } else if (arg === '--delete' || arg === '--prune' || /^-[a-zA-Z]*d[a-zA-Z]*$/.test(arg)) {
      findings.add('dangerous', `git push ${arg} deletes branches or tags on the remote`);
    } else if (arg.startsWith('+')) {
      findings.add('dangerous', `git push ${arg} force-pushes a ref`);
    } else if (arg.startsWith(':')) {
      findings.add('dangerous', `git push ${arg} deletes a ref on the remote`);
    }
  }
}
