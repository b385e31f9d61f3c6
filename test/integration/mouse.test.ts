/**
 * `send`'s `mouse` (docs/design.md §3.3) against real programs on real PTYs: vim with
 * `set mouse=a` (a click moves the cursor to the cell, also in the default encoding; a drag
 * selects; the wheel scrolls), `less --mouse` scrolled by the wheel, htop's function bar clicked,
 * a Python curses program (ncurses) that prints the mouse events it decodes, a program that
 * prints the raw reports it reads (motion, X10, bytes past 127), the wheel turned into arrow keys
 * in the alternate screen where xterm.js does that, and the refusals: no mouse reporting, outside
 * the screen, the person in control.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { MouseRequest, ReadRequest } from '../../src/core/types.js';
import { agent, managersPerTest } from './helpers/core.js';

const { manager } = managersPerTest();

function read(session: TerminalSession, request: Partial<ReadRequest> & Pick<ReadRequest, 'view'>): ReturnType<TerminalSession['read']> {
  return session.read({ clientId: 'test', format: 'plain', ...request });
}

function screenWith(session: TerminalSession, pattern: string): ReturnType<TerminalSession['read']> {
  return read(session, { view: 'screen', wait: { pattern, timeout_ms: 10_000 } });
}

/** Lines `line 001 alpha` … in a file of the test's HOME. */
function numberedFile(home: string, count: number): string {
  const file = path.join(home, `lines-${count}.txt`);
  fs.writeFileSync(file, Array.from({ length: count }, (_, i) => `line ${String(i + 1).padStart(3, '0')} alpha`).join('\n') + '\n');
  return file;
}

/**
 * vim on a file of numbered lines, `set mouse=a`: it asks for SGR reports (1006) and button
 * tracking (1002); under TERM=screen, for normal tracking (1000) in the default encoding.
 */
async function vim(lines: number, term?: string): Promise<TerminalSession> {
  const { manager: m, home } = manager();
  const file = numberedFile(home, lines);
  const args = ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-c', 'set mouse=a', file];
  const session = await m.open({
    creator: agent,
    ...(term ? { program: 'env', args: [`TERM=${term}`, 'vim', ...args] } : { program: 'vim', args }),
    cwd: home,
    rows: 24,
    cols: 80,
  });
  await screenWith(session, 'line 001 alpha');
  // vim takes input that comes right after start-up for answers to its terminal queries, which
  // this terminal does not answer: a command that runs shows it has stopped waiting.
  await vimEcho(session, "'ready'", /^ready\s*$/);
  return session;
}

/** What vim says `expr` is, echoed on its command line. */
async function vimEcho(session: TerminalSession, expr: string, expected: RegExp): Promise<string> {
  const echoed = await session.send({ clientId: 'test', text: `:echo ${expr}`, keys: ['enter'], wait: { pattern: expected.source, timeout_ms: 10_000 } });
  expect(echoed.waited).toBe('pattern');
  return echoed.screen;
}

function mouse(session: TerminalSession, request: MouseRequest, pattern?: string): ReturnType<TerminalSession['send']> {
  return session.send({ clientId: 'test', mouse: request, ...(pattern ? { wait: { pattern, timeout_ms: 10_000 } } : {}) });
}

/** A Python curses (ncurses) program that prints each key and mouse event it decodes, one a row. */
async function cursesEvents(): Promise<TerminalSession> {
  const { manager: m, home } = manager();
  const script = path.join(home, 'mouse.py');
  fs.writeFileSync(
    script,
    [
      'import curses',
      'NAMES = ["BUTTON1_CLICKED", "BUTTON1_DOUBLE_CLICKED", "BUTTON3_CLICKED", "BUTTON4_PRESSED", "BUTTON5_PRESSED", "BUTTON_CTRL", "BUTTON_SHIFT", "BUTTON_ALT"]',
      'def main(s):',
      '    curses.mousemask(curses.ALL_MOUSE_EVENTS)',
      '    s.addstr(0, 0, "ready")',
      '    n = 1',
      '    while True:',
      '        k = s.get_wch()',
      '        if k == curses.KEY_MOUSE:',
      '            _, x, y, _, b = curses.getmouse()',
      '            text = "mouse x=%d y=%d %s" % (x, y, "|".join(n for n in NAMES if b & getattr(curses, n)))',
      '        else:',
      '            text = "key %r" % (k,)',
      '        s.addstr(n, 0, text + " #%d" % n)',
      '        s.refresh()',
      '        n += 1',
      'curses.wrapper(main)',
    ].join('\n'),
  );
  const session = await m.open({ creator: agent, program: 'python3', args: [script], cwd: home, rows: 24, cols: 80 });
  await screenWith(session, '^ready');
  return session;
}

describe('send mouse, vim with set mouse=a', () => {
  it('a click moves the cursor to that cell', async () => {
    const session = await vim(40);
    await mouse(session, { action: 'click', row: 5, col: 9 });
    await vimEcho(session, "'at ' . line('.') . ',' . col('.')", /^at 5,9\s*$/);
    // read's cursor is 0-based: the cell clicked.
    expect((await read(session, { view: 'screen' })).cursor).toEqual({ row: 4, col: 8 });
  });

  it('under TERM=screen (normal tracking, default encoding): a click moves the cursor to that cell', async () => {
    const session = await vim(40, 'screen');
    await mouse(session, { action: 'click', row: 7, col: 12 });
    await vimEcho(session, "'at ' . line('.') . ',' . col('.')", /^at 7,12\s*$/);
  });

  it('a drag selects from the press to the release: the yanked text is that span', async () => {
    const session = await vim(40);
    await mouse(session, { action: 'drag', row: 2, col: 6, to_row: 3, to_col: 8 }, '-- VISUAL --');
    await session.send({ clientId: 'test', keys: ['y'] });
    await vimEcho(session, "'got ' . strtrans(@\")", /^got 002 alpha\^@line 003\s*$/);
  });

  it('the wheel scrolls: the top line moves down by what vim scrolls for each step', async () => {
    const session = await vim(200);
    // vim scrolls three lines a wheel step; 23 of the 24 rows show the file.
    const scrolled = await mouse(session, { action: 'scroll', row: 10, col: 10, amount: 2 }, 'line 029 alpha');
    expect(scrolled.screen.split('\n')[0]).toBe('line 007 alpha');
    const back = await mouse(session, { action: 'scroll', row: 10, col: 10, amount: -1 }, 'line 004 alpha');
    expect(back.screen.split('\n')[0]).toBe('line 004 alpha');
  });
});

describe('send mouse, other programs', () => {
  it('less --mouse scrolls by the wheel', async () => {
    const { manager: m, home } = manager();
    const file = numberedFile(home, 200);
    const session = await m.open({ creator: agent, program: 'less', args: ['--mouse', '--wheel-lines=5', file], cwd: home, rows: 24, cols: 80 });
    await screenWith(session, 'line 001 alpha');
    const scrolled = await mouse(session, { action: 'scroll', row: 5, col: 5, amount: 2 }, 'line 033 alpha');
    expect(scrolled.screen.split('\n')[0]).toBe('line 011 alpha');
  });

  it('an ncurses program (Python curses) gets the click, double click, right click, modifiers and wheel at the cell', async () => {
    const session = await cursesEvents();
    // Text first, then the mouse, in one call.
    await session.send({ clientId: 'test', text: 'a', mouse: { action: 'click', row: 6, col: 11 }, wait: { pattern: '#2$', timeout_ms: 10_000 } });
    await mouse(session, { action: 'double_click', row: 7, col: 3 }, '#3$');
    await mouse(session, { action: 'click', row: 8, col: 4, button: 'right', modifiers: ['ctrl'] }, '#4$');
    await mouse(session, { action: 'scroll', row: 9, col: 5, amount: -1 }, '#5$');
    const last = await mouse(session, { action: 'scroll', row: 9, col: 5, amount: 1 }, '#6$');
    expect(last.screen.split('\n').slice(1, 7)).toEqual([
      "key 'a' #1",
      'mouse x=10 y=5 BUTTON1_CLICKED #2',
      'mouse x=2 y=6 BUTTON1_DOUBLE_CLICKED #3',
      'mouse x=3 y=7 BUTTON3_CLICKED|BUTTON_CTRL #4',
      'mouse x=4 y=8 BUTTON4_PRESSED #5',
      'mouse x=4 y=8 BUTTON5_PRESSED #6',
    ]);
  });

  it('htop: a click on F1Help in its function bar opens its help screen', async () => {
    const { manager: m, home } = manager();
    const session = await m.open({ creator: agent, program: 'htop', args: [], cwd: home, rows: 24, cols: 100 });
    const screen = await screenWith(session, 'F1Help');
    const text = screen.content as string; // plain
    const bar = text.split('\n').length;
    expect(bar).toBe(24); // the function bar is htop's last row
    const col = text.split('\n').at(-1)!.indexOf('Help') + 1;
    expect(col).toBeGreaterThan(0);
    const helped = await mouse(session, { action: 'click', row: bar, col }, 'Process state:');
    expect(helped.waited).toBe('pattern');
    expect(helped.screen).toMatch(/^htop \d.* - \(C\)/);
  });

  it('the wheel becomes arrow keys in the alternate screen when the program takes no mouse (less without --mouse), as in xterm.js', async () => {
    const { manager: m, home } = manager();
    const file = numberedFile(home, 200);
    const session = await m.open({ creator: agent, program: 'less', args: [file], cwd: home, rows: 24, cols: 80 });
    await screenWith(session, 'line 001 alpha');
    const scrolled = await mouse(session, { action: 'scroll', row: 5, col: 5, amount: 3 }, 'line 026 alpha');
    expect(scrolled.screen.split('\n')[0]).toBe('line 004 alpha');
  });
});

describe('send mouse, bytes', () => {
  it('default-encoding reports reach the program as bytes: column 200 is the byte 232, not its UTF-8', async () => {
    const { manager: m, home } = manager();
    const session = await m.open({
      creator: agent,
      program: 'sh',
      args: ['-c', 'stty raw -echo; printf "\\033[?1000hready\\r\\n"; head -c 12 | od -An -tx1'],
      cwd: home,
      rows: 24,
      cols: 220,
    });
    await screenWith(session, '^ready');
    const sent = await mouse(session, { action: 'click', row: 3, col: 200 }, '1b 5b 4d');
    // Press (button 0) and release (3) at column 200 (232 = 0xe8), row 3 (35 = 0x23).
    expect(sent.output).toContain('1b 5b 4d 20 e8 23 1b 5b 4d 23 e8 23');
  });
});

/**
 * A program that turns on `modes` and prints each mouse report it reads, one a line (ESC as
 * `^[`): what reaches a program, as no curses library shows it.
 */
async function rawReports(modes: string): Promise<TerminalSession> {
  const { manager: m, home } = manager();
  const script = path.join(home, 'raw.py');
  fs.writeFileSync(
    script,
    [
      'import os, re, tty',
      'tty.setraw(0)',
      `os.write(1, b"\\x1b[?${modes}hready\\r\\n")`,
      'REPORT = re.compile(rb"\\x1b\\[<[0-9;]*[Mm]|\\x1b\\[M[\\s\\S]{3}")',
      'data = b""',
      'while True:',
      '    data += os.read(0, 1024)',
      '    for report in REPORT.findall(data): os.write(1, report.replace(b"\\x1b", b"^[") + b"\\r\\n")',
      '    data = REPORT.split(data)[-1]',
    ].join('\n'),
  );
  const session = await m.open({ creator: agent, program: 'python3', args: [script], cwd: home, rows: 24, cols: 80 });
  await screenWith(session, '^ready');
  return session;
}

describe('send mouse, motion', () => {
  it('a drag with button tracking (1002): the press, motion through each cell on the way, the release', async () => {
    const session = await rawReports('1002;1006');
    const sent = await session.send({
      clientId: 'test',
      mouse: { action: 'drag', row: 3, col: 2, to_row: 5, to_col: 5, modifiers: ['shift'] },
      wait: { pattern: '\\[<4;5;5m', timeout_ms: 10_000 },
    });
    expect(sent.screen.split('\n').slice(1)).toEqual(['^[[<4;2;3M', '^[[<36;3;4M', '^[[<36;4;4M', '^[[<36;5;5M', '^[[<4;5;5m']);
  });

  it('normal tracking (1000) reports no motion: a drag is the press at the start and the release at the end', async () => {
    const session = await rawReports('1000;1006');
    const sent = await session.send({
      clientId: 'test',
      mouse: { action: 'drag', row: 3, col: 2, to_row: 5, to_col: 5 },
      wait: { pattern: '\\[<0;5;5m', timeout_ms: 10_000 },
    });
    expect(sent.screen.split('\n').slice(1)).toEqual(['^[[<0;2;3M', '^[[<0;5;5m']);
  });

  it('X10 tracking (9) reports presses only, without modifiers: a click is one press', async () => {
    const session = await rawReports('9');
    const sent = await session.send({
      clientId: 'test',
      mouse: { action: 'click', row: 3, col: 2, modifiers: ['ctrl'] },
      wait: { pattern: 'M "#', timeout_ms: 10_000 },
    });
    expect(sent.screen.split('\n').slice(1)).toEqual(['^[[M "#']); // button 0, column 2, row 3: bytes 32, 34, 35
  });
});

describe('send mouse, refused', () => {
  it('at a plain bash prompt (no mouse reporting): INVALID_ARGUMENT saying so and what to do; nothing typed', async () => {
    const session = await manager().manager.open({ creator: agent });
    const before = await read(session, { view: 'screen' });
    await expect(mouse(session, { action: 'click', row: 1, col: 1 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/has not turned on mouse reporting.*Use keys instead.*set mouse=a/),
    });
    // The scroll too: the normal screen has scrollback, so xterm.js would scroll its own view.
    await expect(mouse(session, { action: 'scroll', row: 1, col: 1, amount: 1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const after = await session.send({ clientId: 'test', text: 'echo still-here', keys: ['enter'], wait: { pattern: '^still-here', timeout_ms: 10_000 } });
    expect(after.waited).toBe('pattern');
    expect(before.content).not.toContain('still-here');
  });

  it('outside the screen: INVALID_ARGUMENT naming the value and the screen size', async () => {
    const session = await vim(10);
    await expect(mouse(session, { action: 'click', row: 25, col: 1 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/mouse\.row: 25 is outside the screen .*\(24 rows × 80 columns\)/),
    });
    await expect(mouse(session, { action: 'drag', row: 1, col: 1, to_row: 2, to_col: 81 })).rejects.toMatchObject({
      message: expect.stringMatching(/mouse\.to_col: 81 is outside the screen/),
    });
  });

  it('while the person controls the session: SESSION_CONTROLLED_BY_USER, as for other input', async () => {
    const session = await vim(10);
    session.takeOver();
    await expect(mouse(session, { action: 'click', row: 2, col: 2 })).rejects.toMatchObject({ code: 'SESSION_CONTROLLED_BY_USER' });
  });
});
