import { join } from 'node:path';
import { hasShortFlag, judgeWrite, locateAt, operandsOf, placeAt, placeContextOf, protectedLabel, usesTainted, whereNote, type CheckContext, type ShellState } from './command-context.js';
import { downloads, INTERPRETERS } from './command-names.js';
import { pathOfWord, physicalPathOfWord } from './command-places.js';
import { checkGitCommand } from './git-command-rules.js';
import { checkLinkTargets } from './link-targets.js';
import { checkReadOnly } from './read-only-commands.js';
import type { ShellWord } from './shell-syntax.js';

/** What the checker knows about particular commands: one rule per program name. */

export interface RuleInput {
  readonly name: string;
  readonly args: readonly ShellWord[];
  readonly context: CheckContext;
  readonly state: ShellState;
  readonly depth: number;
  /** More arguments come from input (xargs): their paths are unknown. */
  readonly moreFromInput: boolean;
}

export type CommandRule = (input: RuleInput) => void;

function privilegeRule({ name, context }: RuleInput): void {
  context.findings.add('dangerous', `${name} runs commands with elevated privileges`);
}

function diskRule({ name, context }: RuleInput): void {
  context.findings.add('dangerous', `${name} formats or partitions disks`);
}

function powerRule({ name, args, context }: RuleInput): void {
  const texts = args.map((word) => word.text);
  if (name === 'systemctl' || name === 'init' || name === 'telinit') {
    const stops = texts.some((text) => /^(?:poweroff|reboot|halt|kexec|rescue|emergency|suspend|hibernate|hybrid-sleep|0|1|6)$/.test(text));
    context.findings.add(stops ? 'dangerous' : 'risky', stops ? `${name} ${texts.join(' ')} stops or restarts the machine` : `${name} changes system services`);
    return;
  }
  context.findings.add('dangerous', `${name} shuts down or restarts the machine`);
}

function killRule({ name, args, context }: RuleInput): void {
  let operands = args;
  if (operands[0] !== undefined && (operands[0].text === '-s' || operands[0].text === '-n')) operands = operands.slice(2);
  else if (operands[0] !== undefined && operands[0].text.startsWith('-') && operands[0].text !== '--') operands = operands.slice(1);
  if (operands.some((word) => word.text === '-1' || word.text === '1')) {
    context.findings.add('dangerous', `${name} ${args.map((word) => word.text).join(' ')} signals every process (or init)`);
  } else {
    context.findings.add('risky', `${name} stops processes`);
  }
}

function deleteRule({ name, args, context, state, moreFromInput }: RuleInput): void {
  const { findings } = context;
  const recursive = name === 'rm' && (hasShortFlag(args, 'r') || hasShortFlag(args, 'R') || args.some((word) => word.text === '--recursive'));
  if (args.some((word) => word.text === '--no-preserve-root')) findings.add('dangerous', `${name} --no-preserve-root can delete the whole system`);
  const targets = operandsOf(args);
  if (moreFromInput && recursive) findings.add('dangerous', `${name} -r on paths read from input: what it deletes is only known when it runs`);
  if (targets.length === 0) findings.add('risky', `${name} deletes files`);
  for (const target of targets) {
    // rm, unlink and rmdir remove a link they are given, not what it leads to; shred writes through it.
    const location = locateAt(target, context, state, name === 'shred' ? 'target' : 'entry');
    const { place } = location;
    if (place === 'root' || place === 'above') findings.add('dangerous', `${name} ${target.text} deletes the whole workspace or a folder that contains it${whereNote(target, location)}`);
    else if (place === 'protected') findings.add('dangerous', `${name} ${target.text} deletes inside ${protectedLabel(target.text, location)}`);
    else if (place === 'outside' || place === 'device') findings.add('dangerous', `${name} ${target.text} deletes outside the workspace${whereNote(target, location)}`);
    else if (place === 'unknown' && recursive) findings.add('dangerous', `${name} -r ${target.text}: what it deletes is only known when it runs`);
    else findings.add('risky', `${name} deletes files`);
  }
}

/** Which operands a file-changing command writes. */
function writtenOperands(name: string, args: readonly ShellWord[]): ShellWord[] {
  const operands = operandsOf(args);
  const targetOption = args.findIndex((word) => word.text === '-t' || word.text.startsWith('--target-directory'));
  switch (name) {
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
    case 'rsync':
    case 'scp':
      if (targetOption >= 0) {
        const option = args[targetOption]!;
        return option.text.includes('=') ? [{ ...option, text: option.text.slice(option.text.indexOf('=') + 1) }] : args.slice(targetOption + 1, targetOption + 2);
      }
      return operands.slice(-1);
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return args.some((word) => word.text.startsWith('--reference')) ? operands : operands.slice(1);
    case 'sed':
    case 'perl':
      if (!args.some((word) => /^-(?:[a-zA-Z]*i|-in-place)/.test(word.text))) return [];
      return args.some((word) => /^-(?:e|f|-expression|-file)/.test(word.text)) ? operands : operands.slice(1);
    default:
      return operands;
  }
}

function writeRule({ name, args, context, state }: RuleInput): void {
  const { findings } = context;
  const targets = writtenOperands(name, args);
  const recursive = hasShortFlag(args, 'R') || args.some((word) => word.text === '--recursive');
  if (targets.length === 0) findings.add('risky', `${name} changes files`);
  for (const target of targets) {
    const location = locateAt(target, context, state);
    if (location.place === 'root' && (name === 'mv' || recursive)) findings.add(name === 'mv' ? 'dangerous' : 'risky', `${name} ${target.text} acts on the whole workspace`);
    else judgeWrite(target, location, findings, `${name} ${target.text}`);
  }
  if (name === 'mv') {
    const operands = operandsOf(args);
    const sources = args.some((word) => word.text === '-t' || word.text.startsWith('--target-directory')) ? operands.filter((word) => !targets.includes(word)) : operands.slice(0, -1);
    // mv moves a link it is given, not what the link leads to.
    for (const source of sources) {
      const location = locateAt(source, context, state, 'entry');
      if (['outside', 'above', 'root', 'device'].includes(location.place)) findings.add('dangerous', `mv ${source.text} moves something that is not inside the workspace${whereNote(source, location)}`);
      else if (location.place === 'protected') findings.add('dangerous', `mv ${source.text} moves something out of ${protectedLabel(source.text, location)}, which no command may change directly`);
      else findings.add('risky', `mv ${source.text}: it moves a file`);
    }
  }
}

function ddRule({ args, context, state }: RuleInput): void {
  const output = args.find((word) => word.text.startsWith('of='));
  if (output === undefined) {
    context.findings.add('risky', 'dd copies raw data');
    return;
  }
  const target = { ...output, text: output.text.slice(3), tilde: output.text.startsWith('of=~') };
  judgeWrite(target, locateAt(target, context, state), context.findings, `dd of=${target.text}`);
}

/** `cd`, `pushd`, `popd`: later relative paths resolve against the new folder (unknown when it is). */
function cdRule(input: RuleInput): void {
  changeFolder(input);
  // Relative paths after it cannot be judged: `cd $DIR && cat notes` may read anywhere.
  if (input.state.cwd === undefined) input.context.findings.add('risky', `${input.name} goes to a folder only known when it runs`);
}

function changeFolder({ name, args, context, state }: RuleInput): void {
  const operands = operandsOf(args).filter((word) => !/^-[LPe@]+$/.test(word.text));
  const target = operands[0];
  if (name === 'popd' || target?.text === '-' || target?.glob === true) {
    state.cwd = undefined;
    return;
  }
  if (target === undefined) {
    state.cwd = context.options.home;
    return;
  }
  // bash's `cd` reads `..` lexically (`cd link/..` comes back); `cd -P` goes where the links lead.
  const physical = args.some((word) => /^-[LPe@]*P[LPe@]*$/.test(word.text));
  const placeContext = placeContextOf(context, state);
  state.cwd = physical ? physicalPathOfWord(target, placeContext) : pathOfWord(target, placeContext);
}

function shellRule({ name, args, context, state, depth }: RuleInput): void {
  const { findings } = context;
  let inline = false;
  let script: ShellWord | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const text = args[index]!.text;
    if (text === '-o' || text === '+o') {
      index += 1;
      continue;
    }
    if (text === '--') continue;
    if (/^-[a-zA-Z]+$/.test(text)) {
      if (text.includes('c')) inline = true;
      continue;
    }
    if (text.startsWith('-') && text.length > 1) continue;
    script = args[index];
    break;
  }
  if (script === undefined) {
    // Its script comes from its input: a here-document, a here-string, a pipe or a terminal.
    findings.opaque(`${name} reads the commands it runs from its input (a here-document, here-string or pipe), which the checker cannot see`);
    return;
  }
  if (script.processSubstitution || script.expanded) {
    if (script.substitutions.some((inner) => downloads(inner, depth)) || usesTainted(script, state)) findings.add('dangerous', `${name} runs downloaded content`);
    findings.opaque(`${name} runs a script only known when it runs`);
    return;
  }
  if (!inline) {
    findings.add('risky', `${name} runs the script ${script.text}`);
    return;
  }
  findings.add('risky', `${name} -c runs a nested command line`);
  context.checkScript(script.text, { cwd: state.cwd, tainted: state.tainted }, depth + 1);
}

function evalRule({ name, args, context, state, depth }: RuleInput): void {
  const { findings } = context;
  if (args.some((word) => word.substitutions.some((inner) => downloads(inner, depth)) || usesTainted(word, state))) {
    findings.add('dangerous', `${name} runs downloaded content`);
  }
  if (name !== 'eval') {
    findings.add('risky', `${name} runs a script in the current shell`);
    return;
  }
  if (args.some((word) => word.expanded)) {
    findings.opaque('eval runs text only known when it runs');
    return;
  }
  findings.add('risky', 'eval runs text as a command line');
  context.checkScript(args.map((word) => word.text).join(' '), { cwd: state.cwd, tainted: state.tainted }, depth + 1);
}

function interpreterRule({ name, args, context }: RuleInput): void {
  const inline = args.some((word) => /^-(?:c|e|E|-eval)$/.test(word.text));
  context.findings.add('risky', inline ? `${name} runs inline code` : `${name} runs a program`);
}

function networkRule({ name, context }: RuleInput): void {
  context.findings.reachesRemote(`${name} uses the network`);
}

/** `npm publish`, `gh …`, `docker push`: commands that send something to a remote service. */
function publishRule({ name, args, context }: RuleInput): void {
  const subcommand = args.find((word) => !word.text.startsWith('-'))?.text ?? '';
  if (name === 'gh' || name === 'hub' || name === 'sftp') context.findings.reachesRemote(`${name} works with a remote service`);
  else if (/^(?:publish|unpublish|deprecate|dist-tag|owner|adduser|login|push)$/.test(subcommand)) context.findings.reachesRemote(`${name} ${subcommand} sends to a remote registry`);
  else context.findings.add('risky', `${name} is not a known read-only command`);
}

const FIND_ACTIONS_WITH_COMMAND = new Set(['-exec', '-execdir', '-ok', '-okdir']);

const FIND_ACTIONS_WRITING = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

function findRule({ args, context, state, depth }: RuleInput): void {
  const { findings } = context;
  const starts: ShellWord[] = [];
  let index = 0;
  while (index < args.length && /^-[HLP]$|^-D$|^-O\d*$/.test(args[index]!.text)) index += args[index]!.text === '-D' ? 2 : 1;
  for (; index < args.length; index += 1) {
    const text = args[index]!.text;
    if (text.startsWith('-') || text === '(' || text === '!' || text === ')') break;
    starts.push(args[index]!);
  }
  if (starts.length === 0) starts.push({ text: '.', quoted: false, expanded: false, glob: false, tilde: false, substitutions: [], processSubstitution: false });
  let readOnly = true;
  for (; index < args.length; index += 1) {
    const text = args[index]!.text;
    if (FIND_ACTIONS_WITH_COMMAND.has(text)) {
      readOnly = false;
      const end = args.findIndex((word, at) => at > index && (word.text === ';' || word.text === '+'));
      const inner = args.slice(index + 1, end < 0 ? args.length : end);
      findings.add('risky', `find ${text} runs a command on every match`);
      for (const start of starts.slice(0, 4)) {
        const match = { ...start, text: join(start.text, 'match'), glob: false };
        context.checkWords(inner.map((word) => (word.text.includes('{}') ? match : word)), state, depth + 1, false);
      }
      index = end < 0 ? args.length : end;
    } else if (text === '-delete') {
      readOnly = false;
      for (const start of starts) {
        const location = locateAt(start, context, state);
        const { place } = location;
        if (place === 'outside' || place === 'above' || place === 'device') findings.add('dangerous', `find ${start.text} -delete deletes outside the workspace${whereNote(start, location)}`);
        else if (place === 'protected') findings.add('dangerous', `find ${start.text} -delete deletes inside ${protectedLabel(start.text, location)}`);
        else if (place === 'unknown') findings.add('dangerous', `find ${start.text} -delete: what it deletes is only known when it runs`);
        else findings.add('risky', 'find -delete deletes files');
      }
    } else if (FIND_ACTIONS_WRITING.has(text)) {
      readOnly = false;
      findings.add('risky', `find ${text} writes a file`);
    }
  }
  if (readOnly) checkReadOnly('find', [...starts, ...args.filter((word) => word.expanded)], context, state);
}

function gitRule({ args, context, state }: RuleInput): void {
  checkGitCommand(args, context.findings, (word) => placeAt(word, context, state));
}

const COMMAND_RULES: Readonly<Record<string, CommandRule>> = {
  sudo: privilegeRule,
  doas: privilegeRule,
  su: privilegeRule,
  pkexec: privilegeRule,
  run0: privilegeRule,
  runuser: privilegeRule,
  chroot: privilegeRule,
  mke2fs: diskRule,
  mkswap: diskRule,
  fdisk: diskRule,
  sfdisk: diskRule,
  cfdisk: diskRule,
  gdisk: diskRule,
  parted: diskRule,
  wipefs: diskRule,
  blkdiscard: diskRule,
  shutdown: powerRule,
  reboot: powerRule,
  halt: powerRule,
  poweroff: powerRule,
  init: powerRule,
  telinit: powerRule,
  systemctl: powerRule,
  kill: killRule,
  killall: killRule,
  pkill: killRule,
  rm: deleteRule,
  unlink: deleteRule,
  shred: deleteRule,
  rmdir: deleteRule,
  cp: writeRule,
  mv: writeRule,
  ln: (input) => {
    checkLinkTargets(input.args, input.context, input.state);
    writeRule(input);
  },
  install: writeRule,
  tee: writeRule,
  touch: writeRule,
  mkdir: writeRule,
  truncate: writeRule,
  rsync: (input) => {
    if (operandsOf(input.args).some((word) => /^[^/]*[^/\\]:/.test(word.text))) input.context.findings.reachesRemote('rsync copies to or from another host');
    writeRule(input);
  },
  scp: (input) => {
    input.context.findings.reachesRemote('scp copies to or from another host');
    writeRule(input);
  },
  chmod: writeRule,
  chown: writeRule,
  chgrp: writeRule,
  sed: (input) => (writtenOperands('sed', input.args).length > 0 ? writeRule(input) : input.context.findings.add('risky', 'sed can run commands and write files from its script')),
  perl: (input) => (writtenOperands('perl', input.args).length > 0 ? writeRule(input) : interpreterRule(input)),
  dd: ddRule,
  cd: cdRule,
  pushd: cdRule,
  popd: cdRule,
  sh: shellRule,
  bash: shellRule,
  zsh: shellRule,
  dash: shellRule,
  ksh: shellRule,
  mksh: shellRule,
  ash: shellRule,
  fish: shellRule,
  csh: shellRule,
  tcsh: shellRule,
  busybox: shellRule,
  eval: evalRule,
  source: evalRule,
  '.': evalRule,
  curl: networkRule,
  wget: networkRule,
  fetch: networkRule,
  aria2c: networkRule,
  nc: networkRule,
  ncat: networkRule,
  netcat: networkRule,
  socat: networkRule,
  ssh: networkRule,
  sftp: publishRule,
  gh: publishRule,
  hub: publishRule,
  npm: publishRule,
  pnpm: publishRule,
  yarn: publishRule,
  docker: publishRule,
  podman: publishRule,
  twine: (input) => input.context.findings.reachesRemote('twine uploads packages'),
  find: findRule,
  git: gitRule,
};

/** The rule for a program, if the checker has one. */
export function ruleFor(name: string): CommandRule | undefined {
  return COMMAND_RULES[name] ?? (INTERPRETERS.test(name) ? interpreterRule : name.startsWith('mkfs') ? diskRule : undefined);
}
