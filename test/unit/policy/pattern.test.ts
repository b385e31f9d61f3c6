/**
 * Rule patterns (src/policy/pattern.ts) and words as the program gets them (words.ts): the
 * pieces of docs/design.md §2.9 that carry logic of their own. Lines are only parsed.
 */
import { describe, expect, it } from 'vitest';
import { matchStage, parsePattern, type CommandPattern } from '../../../src/policy/pattern.js';
import { bashParser, withTree } from '../../../src/policy/shellParser.js';
import { decodeAnsiC, evaluateWord, literalWord, unknownWord, type Word } from '../../../src/policy/words.js';

function pattern(source: string): CommandPattern {
  const parsed = parsePattern(source);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
}

/** How `source` matches a command of known words (`?` stands for an unknown word). */
function match(source: string, command: string): string | null {
  const [program, ...args] = command.split(' ').map((text): Word => (text === '?' ? unknownWord('?') : literalWord(text)));
  const stage = pattern(source).stages.at(-1);
  if (!stage || !program) throw new Error('empty');
  return matchStage(stage, { program: program.value, args });
}

describe('policy: rule patterns', () => {
  it.each([
    ['rm -rf *', 'rm -rf /', 'certain'],
    ['rm -rf *', 'rm -fr /', 'certain'],
    ['rm -rf *', 'rm -r -f /', 'certain'],
    ['rm -rf *', 'rm --recursive --force /', 'certain'],
    ['rm -rf *', 'rm -Rfv /', 'certain'],
    ['rm -rf *', 'rm -r /', null],
    ['rm -rf *', '/usr/bin/rm -rf x', 'certain'],
    ['/usr/bin/rm *', 'rm x', null],
    ['rm -r *', 'rm ? x', 'possible'],
    ['rm -r *', 'rm x', null],
    // Closed: no operand or flag the pattern does not name.
    ['git status', 'git status', 'certain'],
    ['git status', 'git status --short', null],
    ['git status', 'git status x', null],
    ['git status', 'git ?', 'possible'],
    ['ls -la', 'ls -al', 'certain'],
    ['ls -la', 'ls -l', null],
    // Open: a last word ending in `*` takes more words, flags included.
    ['git push --force*', 'git push --force-with-lease origin', 'certain'],
    ['git push --force*', 'git push origin main -f', 'certain'],
    ['git push --force*', 'git -C /x push --force', 'certain'],
    ['git push --force*', 'git pull --force', null],
    ['git push * +*', 'git push origin +main', 'certain'],
    ['git push * +*', 'git push origin main', null],
    ['npm run *', 'npm run', 'certain'],
    ['npm run *', 'npm run build --watch', 'certain'],
    ['npm run test', 'npm run build', null],
    ['{npm,pnpm} i*', 'pnpm install', 'certain'],
    ['mkfs*', 'mkfs.ext4 /dev/sda', 'certain'],
    ['dd * of=/dev/*', 'dd if=x of=/dev/sda bs=1M', 'certain'],
    ['dd * of=/dev/*', 'dd if=x of=out.img', null],
    ['kill -1 *', 'kill -9 -- -1', 'certain'],
    ['kill -1 *', 'kill -s KILL -1', 'certain'],
    ['kill -1 *', 'kill -9 1', null],
    ['ls [ab]?', 'ls a1', 'certain'],
    ["echo 'a b'", 'echo a', null],
  ])('%s against %s: %s', (source, command, expected) => {
    expect(match(source, command)).toBe(expected);
  });

  it('a pipe pattern has its stages in order, upstream first', () => {
    expect(pattern('curl * | tee * | sh').stages.map((stage) => stage.program.source)).toEqual(['curl', 'tee', 'sh']);
  });

  it.each([
    ['', 'it is empty'],
    ['   ', 'it is empty'],
    ['-rf', 'it must start with a program, not the flag -rf'],
    ['rm | ', 'a `|` has no command on one side'],
    ['| sh', 'a `|` has no command on one side'],
    ["echo 'x", "a ' is not closed"],
    ['ls [ab', 'a `[` has no `]`'],
    ['rm {a,b', 'a `{` has no `}`'],
    ['rm {a b}', 'a `{…}` holds a space, `|` or another `{`'],
  ])('%j cannot be read: %s', (source, problem) => {
    expect(parsePattern(source)).toEqual({ problem });
  });
});

describe('policy: words as the program gets them', () => {
  async function words(line: string): Promise<Word[]> {
    const parser = await bashParser();
    return withTree(parser, line, (root) => {
      const command = root.descendantsOfType('command')[0];
      if (!command) throw new Error(`no command in ${line}`);
      return command.namedChildren
        .filter((node) => node !== null && node.type !== 'variable_assignment')
        .map((node) => evaluateWord(node?.type === 'command_name' ? (node.firstNamedChild ?? node) : node!));
    });
  }

  it('quotes and backslashes are removed as the shell removes them', async () => {
    const line = String.raw`r\m 'a b' "c\"d\e" $'\x72\101\n' "x"'y'z \$HOME`;
    expect((await words(line)).map((word) => word.value)).toEqual(['rm', 'a b', 'c"d\\e', 'rA\n', 'xyz', '$HOME']);
  });

  it('a word only running the line would tell is unknown, and says so as written', async () => {
    const found = await words('echo $X "${Y}z" $(date) `id` <(ls) $((1+2)) {a,b} x{1..3}');
    expect(found.slice(1).map((word) => [word.value, word.text])).toEqual([
      [null, '$X'],
      [null, '"${Y}z"'],
      [null, '$(date)'],
      [null, '`id`'],
      [null, '<(ls)'],
      [null, '$((1+2))'],
      [null, '{a,b}'],
      [null, 'x{1..3}'],
    ]);
  });

  it('an unquoted *, ? or [ marks a word the shell may expand into file names', async () => {
    expect((await words(`ls *.ts 'a*' a\\* b?`)).map((word) => word.glob)).toEqual([false, true, false, false, true]);
  });

  it("$'…' escapes decode as bash decodes them", () => {
    expect(decodeAnsiC(String.raw`\x72\x6d \u00e9\U0001F600 \101\t\cA\\\'`)).toBe("rm é😀 A\t\x01\\'");
  });
});
