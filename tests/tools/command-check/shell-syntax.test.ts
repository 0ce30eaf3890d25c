import { describe, expect, it } from 'vitest';
import { parseShell, type ShellScript } from '../../../tools/index.js';

function words(script: ShellScript): string[][][] {
  return script.pipelines.map((pipeline) => pipeline.map((command) => command.words.map((word) => word.text)));
}

describe('parseShell', () => {
  it.each([
    ['ls -la', [[['ls', '-la']]]],
    ["echo 'a;b' | wc -l", [[['echo', 'a;b'], ['wc', '-l']]]],
    ['a && b || c; d & e', [[['a']], [['b']], [['c']], [['d']], [['e']]]],
    ['echo "x y"z', [[['echo', 'x yz']]]],
    ['echo a\\ b', [[['echo', 'a b']]]],
    ["$'\\x72m' -rf x", [[['rm', '-rf', 'x']]]],
    ['s\\udo id', [[['sudo', 'id']]]],
    ['echo a # comment ; rm x', [[['echo', 'a']]]],
    ['ls \\\n  -la', [[['ls', '-la']]]],
    ['if true; then ls; fi', [[['true']], [['ls']]]],
  ])('%j → %j', (source, expected) => {
    expect(words(parseShell(source))).toEqual(expected);
  });

  it('finds substitutions at any quoting depth, and in here-documents', () => {
    expect(parseShell('echo $(a) "$(b)" `c` ${x:-$(d)} <(e)').substitutions).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(parseShell("echo '$(not)' \\$HOME").substitutions).toEqual([]);
    expect(parseShell('cat <<EOF\n$(inside)\nEOF\nls').substitutions).toEqual(['inside']);
    expect(parseShell("cat <<'EOF'\n$(quoted)\nEOF").substitutions).toEqual([]);
    expect(parseShell('echo $(echo $(nested))').substitutions).toEqual(['echo $(nested)']);
  });

  it('separates assignments, redirections and file descriptors', () => {
    const [command] = parseShell('A=1 B="x y" cmd arg 2>&1 >out.txt <in.txt').pipelines[0]!;
    expect(command!.assignments.map((word) => word.text)).toEqual(['A=1', 'B=x y']);
    expect(command!.words.map((word) => word.text)).toEqual(['cmd', 'arg']);
    expect(command!.redirects.map((redirect) => [redirect.operator, redirect.fd, redirect.target.text])).toEqual([
      ['>&', 2, '1'],
      ['>', undefined, 'out.txt'],
      ['<', undefined, 'in.txt'],
    ]);
  });

  it('marks expansions, globs and tildes on words', () => {
    const [command] = parseShell('rm -rf $HOME/x *.log ~/y "~/z"').pipelines[0]!;
    expect(command!.words.map((word) => [word.text, word.expanded, word.glob, word.tilde])).toEqual([
      ['rm', false, false, false],
      ['-rf', false, false, false],
      ['$HOME/x', true, false, false],
      ['*.log', false, true, false],
      ['~/y', false, false, true],
      ['~/z', false, false, false],
    ]);
  });

  it('lists what it does not follow and what it cannot parse', () => {
    expect(parseShell('(cd x && ls)').constructs).toEqual(['subshell']);
    expect(parseShell('f() { ls; }').constructs).toEqual(['function definition']);
    expect(parseShell('for x in a; do echo $x; done').constructs).toEqual(['for statement']);
    expect(parseShell('sleep 1 &').background).toBe(true);
    expect(parseShell("echo 'open").problems).toEqual(['unterminated single quote']);
    expect(parseShell('echo $(open').problems).toEqual(['unterminated $(']);
    expect(parseShell('echo >').problems).toEqual(['redirection > without a target']);
  });
});
