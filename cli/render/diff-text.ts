import { renderFileDiff, visibleText } from '../../engine/read-face.js';
import type { RunDiff } from '../../engine/index.js';
import { plural, sum } from './counts.js';
import { fileStat } from './diff-json.js';

const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const CYAN = '\u001b[36m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

function paint(text: string, code: string, color: boolean): string {
  return color && text !== '' ? `${code}${text}${RESET}` : text;
}

/**
 * The unified diff, with added lines green, removed lines red, hunk headers cyan and file headers
 * bold when `color`. Control characters and terminal escapes in the files are shown as escapes.
 */
export function renderColoredDiff(diff: RunDiff, options: { color: boolean }): string {
  return diff.files
    .map((file) => {
      const text = visibleText(renderFileDiff(file), { multiline: true });
      if (!options.color) return text;
      let inHunk = false;
      return text
        .split('\n')
        .map((line) => {
          if (line.startsWith('@@')) {
            inHunk = true;
            return paint(line, CYAN, true);
          }
          if (!inHunk) return paint(line, BOLD, true);
          if (line.startsWith('+')) return paint(line, GREEN, true);
          if (line.startsWith('-')) return paint(line, RED, true);
          return line;
        })
        .join('\n');
    })
    .join('');
}

/**
 * `diff --stat`, git-like: one line per file (path, lines added and removed, and for a whole
 * run the nodes that changed it), then the totals.
 */
export function renderDiffStat(diff: RunDiff, options: { color: boolean }): string {
  const stats = diff.files.map(fileStat);
  const rows = stats.map((stat) => {
    const counts =
      stat.content === 'binary'
        ? 'binary'
        : stat.content === 'unrecorded'
          ? 'not recorded'
          : `${paint(`+${stat.added}`, GREEN, options.color)} ${paint(`-${stat.removed}`, RED, options.color)}`;
    const notes = [
      ...(diff.nodeId === null ? [stat.nodeIds.join(', ')] : []),
      ...(stat.change === 'added' ? ['(new file)'] : stat.change === 'deleted' ? ['(deleted)'] : []),
    ].join(' ');
    return { path: visibleText(stat.path), counts, plainCounts: stripColor(counts), notes };
  });
  const pathWidth = Math.max(...rows.map((row) => [...row.path].length));
  const countsWidth = Math.max(...rows.map((row) => row.plainCounts.length));
  const lines = rows.map((row) => {
    const path = row.path + ' '.repeat(pathWidth - [...row.path].length);
    const counts = row.counts + ' '.repeat(countsWidth - row.plainCounts.length);
    return ` ${path} | ${counts}${row.notes === '' ? '' : `  ${row.notes}`}`.trimEnd();
  });
  const added = sum(stats.map((stat) => stat.added));
  const removed = sum(stats.map((stat) => stat.removed));
  lines.push(` ${plural(stats.length, 'file')} changed, ${plural(added, 'insertion')}(+), ${plural(removed, 'deletion')}(-)`);
  return lines.join('\n');
}

function stripColor(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
