import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandName } from '../../cli/commands/index.js';
import type { CliCommand } from '../../cli/context/command.js';
import { plainReadArguments } from '../../cli/main.js';

/**
 * `status`, `log` and `show` on a plain command line start without yargs: their arguments are
 * read directly. They must be exactly what yargs hands the command for that line, and every line
 * that is not plain must be left to yargs.
 */

/** What yargs hands the command's handler, with the same global options and the command's own builder. */
async function throughYargs(argv: readonly string[]): Promise<Record<string, unknown>> {
  const entry = COMMANDS.find((candidate) => commandName(candidate) === argv.find((word) => COMMANDS.some((c) => commandName(c) === word)))!;
  const command = (await entry.load()) as unknown as CliCommand;
  let handed: Record<string, unknown> = {};
  await yargs([...argv])
    .scriptName('dagent')
    .option('workspace', { alias: 'w', type: 'string' })
    .option('db', { type: 'string' })
    .option('json', { type: 'boolean' })
    .strict()
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new Error(message);
    })
    .command(entry.command, entry.describe, (y) => command.builder(y as never), (args) => {
      handed = { ...args };
    })
    .parseAsync();
  // yargs adds the camel-case and alias spellings of options nobody gave; the commands read neither.
  return Object.fromEntries(Object.entries(handed).filter(([, value]) => value !== undefined));
}

describe('a plain read-only command line', () => {
  const plain = [
    ['status'],
    ['status', 'r-12ab'],
    ['-w', '/tmp/repo', 'status', '--json'],
    ['--json', 'log', 'r-12ab', '--db', '/tmp/other.db'],
    ['show', 'r-12ab', '--workspace', 'repo'],
    ['show', '0123'],
    ['log', '--json', 'r-1', '-w', 'w'],
  ];

  it.each(plain)('gives the command what yargs gives it: %j', async (...argv) => {
    expect(plainReadArguments(argv.find((word) => ['status', 'log', 'show'].includes(word))!, argv)).toEqual(await throughYargs(argv));
  });

  it('leaves every other line to yargs: options of the command, other globals, help, = forms, repeats, a missing or extra run id', () => {
    const others: [string, string[]][] = [
      ['log', ['log', 'r-1', '--follow']],
      ['log', ['log', 'r-1', '--since', '3']],
      ['log', ['log']],
      ['show', ['show', 'r-1', '--format', 'json']],
      ['show', ['show', 'r-1', 'r-2']],
      ['status', ['status', '--help']],
      ['status', ['status', '-h']],
      ['status', ['--version', 'status']],
      ['status', ['--workspace=/tmp', 'status']],
      ['status', ['-w', 'a', '-w', 'b', 'status']],
      ['status', ['-w', '--json', 'status']],
      ['status', ['-w']],
      ['status', ['status', '--json', '--json']],
      ['status', ['-m', 'scripted:x', 'status']],
      ['status', ['status', '--', 'x']],
      ['status', ['status', '--no-sandbox']],
      ['status', ['status', '--jsn']],
      ['run', ['run', 'r-1']],
    ];
    for (const [command, argv] of others) expect(plainReadArguments(command, argv), argv.join(' ')).toBeUndefined();
  });
});
