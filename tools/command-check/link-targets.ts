import { dirname } from 'node:path';
import { hasShortFlag, locateAt, operandsOf, protectedLabel, type CheckContext, type ShellState } from './command-context.js';
import type { ShellWord } from './shell-syntax.js';

/**
 * `ln`: a link that leads out of the workspace (or into `.git/` or `.dagent/`) is refused. The
 * checker follows links that exist when it judges a command, but not one the same command line
 * makes first (`ln -s ../x l && rm -rf l/`), and a hard link to a file outside changes that file
 * when written. A symbolic link's relative target is read from the folder the link lands in.
 */
export function checkLinkTargets(args: readonly ShellWord[], context: CheckContext, state: ShellState): void {
  const symbolic = hasShortFlag(args, 's') || args.some((word) => word.text === '--symbolic');
  const { sources, folders } = linkOperands(args, context, state);
  for (const source of sources) {
    const placed = symbolic && isRelative(source) ? folders.map((folder) => ({ ...folder, text: `${folder.text}/${source.text}`, glob: source.glob })) : [source];
    for (const candidate of placed) {
      const location = locateAt(candidate, context, state);
      const kind = symbolic ? 'symbolic link' : 'hard link';
      if (location.place === 'outside' || location.place === 'above' || location.place === 'device') {
        context.findings.add('dangerous', `ln ${source.text}: makes a ${kind} to ${location.path ?? source.text}, outside the workspace; commands through it would reach there`);
        return;
      }
      if (location.place === 'protected') {
        context.findings.add('dangerous', `ln ${source.text}: makes a ${kind} into ${protectedLabel(candidate.text, location)}, which no command may change directly`);
        return;
      }
    }
  }
}

interface LinkOperands {
  /** What the links point at. */
  readonly sources: readonly ShellWord[];
  /** Where the links may land: a relative symbolic link target is read from there. */
  readonly folders: readonly ShellWord[];
}

/** `ln TARGET`, `ln TARGET LINK`, `ln TARGET… FOLDER`, `ln -t FOLDER TARGET…`. */
function linkOperands(args: readonly ShellWord[], context: CheckContext, state: ShellState): LinkOperands {
  const operands = operandsOf(args);
  const option = args.findIndex((word) => word.text === '-t' || word.text.startsWith('--target-directory'));
  if (option >= 0) {
    const word = args[option]!;
    const folder = word.text.includes('=') ? { ...word, text: word.text.slice(word.text.indexOf('=') + 1) } : args[option + 1];
    return { sources: operands.filter((operand) => operand !== folder), folders: folder === undefined ? [] : [folder] };
  }
  const here: ShellWord = { text: '.', quoted: false, expanded: false, glob: false, tilde: false, substitutions: [], processSubstitution: false };
  if (operands.length <= 1) return { sources: operands, folders: [here] };
  const last = operands.at(-1)!;
  if (operands.length > 2) return { sources: operands.slice(0, -1), folders: [last] };
  // `ln TARGET LINK` makes LINK, or a link inside LINK when that is a folder: when LINK exists, both are judged.
  const location = locateAt(last, context, state);
  const exists = location.path !== undefined && location.existing === location.path;
  const parent = { ...last, text: dirname(last.text) };
  return { sources: operands.slice(0, 1), folders: exists ? [parent, last] : [parent] };
}

function isRelative(word: ShellWord): boolean {
  return !word.tilde && !word.expanded && !word.text.startsWith('/');
}
