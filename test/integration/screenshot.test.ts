/**
 * `screenshot` and `read` format `styled` against real programs (docs/design.md §3.2):
 * the PNG is decoded again and its pixels checked at the cells (theme colours, 256 and true
 * colours, inverse, the cursor, a wide character across two cells); styled runs of `ls --color`
 * and of vim's syntax colours; the path's errors. Example PNGs go to /tmp/shots/ to be looked at.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import type { StyledRun, StyledContent } from '../../src/core/types.js';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import { SCREENSHOT_GEOMETRY, screenshotSize } from '../../src/hub/screenshot/pngRenderer.js';
import { takeScreenshot } from '../../src/hub/screenshot/takeScreenshot.js';
import { palette256, DARK_TERMINAL, LIGHT_TERMINAL } from '../../src/terminalThemes.js';
import { agent, managersPerTest } from './helpers/core.js';
import { pollUntil } from './helpers/poll.js';

const SHOTS = '/tmp/shots';
const { manager } = managersPerTest();

type Pixels = (col: number, row: number, dx?: number, dy?: number) => string;

/** The PNG decoded; `at(col, row)` the colour at a cell's centre (dx, dy: offsets from the cell's top left instead). */
async function decode(png: Buffer): Promise<{ width: number; height: number; at: Pixels }> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(0, 0, image.width, image.height).data;
  const { cellWidth, cellHeight, padding } = SCREENSHOT_GEOMETRY;
  const at: Pixels = (col, row, dx, dy) => {
    const x = padding + col * cellWidth + (dx ?? Math.floor(cellWidth / 2));
    const y = padding + row * cellHeight + (dy ?? Math.floor(cellHeight / 2));
    const i = (y * image.width + x) * 4;
    return `#${[data[i]!, data[i + 1]!, data[i + 2]!].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  };
  return { width: image.width, height: image.height, at };
}

async function screenOf(session: TerminalSession, pattern: string): Promise<StyledContent> {
  const result = await session.read({ clientId: 'test', view: 'screen', format: 'styled', wait: { pattern, timeout_ms: 10_000 } });
  expect(result.waited).toBe('pattern');
  return result.content as StyledContent;
}

const runs = (content: StyledContent): StyledRun[] => content.rows.flat();

describe('screenshot', () => {
  it('paints each cell in the theme: 16, 256 and true colours, backgrounds, inverse, the cursor', async () => {
    const { manager: m } = manager();
    // █ fills its cell, so the cell's centre shows the foreground colour itself.
    const cells = [
      '\\033[31m█\\033[0m', // col 0: red
      '\\033[42m \\033[0m', // col 1: green background
      '\\033[38;5;208m█\\033[0m', // col 2: 256-colour 208
      '\\033[48;2;10;200;30m \\033[0m', // col 3: true colour background
      '\\033[7m \\033[0m', // col 4: inverse blank: the foreground colour as background
      ' ', // col 5: nothing
      '\\033[44m中\\033[0m\\033[41m \\033[0m', // cols 6–7: a wide character on blue, then col 8 red
    ].join('');
    const session = await m.open({ creator: agent, program: 'sh', args: ['-c', `printf '${cells}\\nEND'; exec cat`], rows: 6, cols: 20 });
    await screenOf(session, 'END');
    const shot = await takeScreenshot(m, session.id, { path: path.join(fs.mkdirSync(SHOTS, { recursive: true }) ?? SHOTS, 'colours.png') });
    const { width, height, at } = await decode(shot.png);
    expect({ width, height }).toEqual(screenshotSize(20, 6));
    const palette = palette256(DARK_TERMINAL);
    expect(at(0, 0)).toBe(DARK_TERMINAL.red);
    expect(at(1, 0)).toBe(DARK_TERMINAL.green);
    expect(at(2, 0)).toBe(palette[208]);
    expect(palette[208]).toBe('#ff8700');
    expect(at(3, 0)).toBe('#0ac81e');
    expect(at(4, 0)).toBe(DARK_TERMINAL.foreground);
    expect(at(5, 0)).toBe(DARK_TERMINAL.background);
    expect(at(12, 3)).toBe(DARK_TERMINAL.background);
    // The wide character's background spans two cells (near their top edge, above any glyph); the next cell starts after them.
    expect(at(6, 0, 2, 1)).toBe(DARK_TERMINAL.blue);
    expect(at(7, 0, SCREENSHOT_GEOMETRY.cellWidth - 2, 1)).toBe(DARK_TERMINAL.blue);
    expect(at(8, 0, 2, 1)).toBe(DARK_TERMINAL.red);
    expect(at(9, 0, 2, 1)).toBe(DARK_TERMINAL.background);
    // The block cursor, after END on row 1.
    expect(shot.screen.cursor).toEqual({ row: 1, col: 3, visible: true });
    expect(at(3, 1)).toBe(DARK_TERMINAL.cursor);
    expect(at(4, 1)).toBe(DARK_TERMINAL.background);
    expect(fs.readFileSync(path.join(SHOTS, 'colours.png')).equals(shot.png)).toBe(true);

    const light = await decode((await takeScreenshot(m, session.id, { theme: 'light' })).png);
    expect(light.at(0, 0)).toBe(LIGHT_TERMINAL.red);
    expect(light.at(5, 0)).toBe(LIGHT_TERMINAL.background);
  });

  it('shows ls --color as styled runs and in colour', async () => {
    const { manager: m, home } = manager();
    const dir = path.join(home, 'listing');
    fs.mkdirSync(path.join(dir, 'subdir'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    const session = await m.open({ creator: agent, cwd: dir });
    const done = await session.execute({ command: 'ls --color=always -1', timeoutMs: 10_000, maxLines: 200 });
    expect(done.exit_code).toBe(0);
    const content = (await session.read({ clientId: 'test', view: 'command', format: 'styled' })).content as StyledContent;
    expect(content.rows).toEqual([[{ text: 'notes.txt' }], [{ text: 'run.sh', fg: 2, bold: true }], [{ text: 'subdir', fg: 4, bold: true }]]);
    const screen = await session.read({ clientId: 'test', view: 'screen', format: 'styled' });
    expect(runs(screen.content as StyledContent)).toContainEqual({ text: 'subdir', fg: 4, bold: true });
    const shot = await takeScreenshot(m, session.id, { path: path.join(SHOTS, 'ls-color.png') });
    const { at } = await decode(shot.png);
    const row = (screen.content as StyledContent).rows.findIndex((r) => r.some((run) => run.text === 'subdir'));
    // Somewhere in "subdir"'s cells the blue glyphs are drawn, and nowhere in "notes.txt"'s.
    const colours = (r: number, from: number, to: number): Set<string> => {
      const seen = new Set<string>();
      for (let c = from; c < to; c++)
        for (let dx = 0; dx < SCREENSHOT_GEOMETRY.cellWidth; dx++) for (let dy = 0; dy < SCREENSHOT_GEOMETRY.cellHeight; dy++) seen.add(at(c, r, dx, dy));
      return seen;
    };
    expect(colours(row, 0, 6).has(DARK_TERMINAL.blue)).toBe(true);
    expect(colours(row - 2, 0, 9).has(DARK_TERMINAL.blue)).toBe(false);
    expect(colours(row - 2, 0, 9).has(DARK_TERMINAL.foreground)).toBe(true);
  });

  it('shows vim with syntax colours as styled runs', async () => {
    const { manager: m, home } = manager();
    const file = path.join(home, 'example.py');
    fs.writeFileSync(file, '# a comment\ndef greet(name):\n    return "hello " + name\n');
    const vim = await m.open({ creator: agent, program: 'vim', args: ['-N', '-u', 'NONE', '-c', 'syntax on', file], cwd: home, rows: 12, cols: 60 });
    const content = await screenOf(vim, 'return');
    const find = (text: string): StyledRun | undefined => runs(content).find((run) => run.text.includes(text));
    const comment = find('# a comment');
    const keyword = find('def');
    const string = find('"hello "');
    expect(comment?.fg, JSON.stringify(content.rows.slice(0, 3))).toBeDefined();
    expect(keyword?.fg).toBeDefined();
    expect(string?.fg).toBeDefined();
    expect(new Set([comment?.fg, keyword?.fg, string?.fg]).size).toBe(3);
    expect(keyword?.text).toBe('def');
    await takeScreenshot(m, vim.id, { path: path.join(SHOTS, 'vim-syntax.png') });
  });

  it('saves htop as the person sees it', async () => {
    const { manager: m } = manager();
    const htop = await m.open({ creator: agent, program: 'htop', rows: 32, cols: 120 });
    const content = await screenOf(htop, 'F10');
    // The function-key bar: labels on a coloured background.
    expect(runs(content).some((run) => run.bg !== undefined)).toBe(true);
    const shot = await takeScreenshot(m, htop.id, { path: path.join(SHOTS, 'htop.png') });
    expect(shot.width).toBe(screenshotSize(120, 32).width);
  });

  it('read styled pages history held in memory, and says so when a page would come from the transcript', async () => {
    const { manager: m } = manager({ settings: { scrollback: 50, agentScrollback: 50 } });
    const session = await m.open({ creator: agent });
    await session.execute({ command: "for i in $(seq 1 300); do printf '\\033[32m%s\\033[0m\\n' $i; done", timeoutMs: 10_000, maxLines: 10 });
    const page = await session.read({ clientId: 'test', view: 'history', format: 'styled', offset: 2, limit: 3 });
    const plainPage = await session.read({ clientId: 'test', view: 'history', format: 'plain', offset: 2, limit: 3 });
    // The same lines as the plain page, each in green.
    expect((page.content as StyledContent).rows).toEqual((plainPage.content as string).split('\n').map((text) => [{ text, fg: 2 }]));
    expect(plainPage.content).toMatch(/^\d+\n\d+\n\d+$/);
    expect({ lines: page.lines, total: page.total_lines, truncated: page.truncated }).toEqual({ lines: 3, total: plainPage.total_lines, truncated: true });
    await expect(session.read({ clientId: 'test', view: 'history', format: 'styled', limit: 1_000 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/read back from the transcript as text only\. Read them with format "plain" or "ansi"/),
    });
    const plain = await session.read({ clientId: 'test', view: 'history', format: 'plain', limit: 1_000 });
    expect(plain.content as string).toMatch(/^1$/m);
  });

  it("takes a closed session's last screen from its transcript", async () => {
    const { manager: m } = manager();
    const session = await m.open({ creator: agent, program: 'sh', args: ['-c', "printf '\\033[41mlast words\\033[0m\\n'"] });
    await session.read({ clientId: 'test', view: 'screen', format: 'plain', wait: { exit: true, timeout_ms: 10_000 } });
    await pollUntil(() => m.list(false).every((s) => s.id !== session.id), 'the session is closed');
    const shot = await takeScreenshot(m, session.id);
    expect(shot.screen.rows[0]).toEqual([{ text: 'last words', bg: 1 }]);
    expect((await decode(shot.png)).at(0, 0, 1, 1)).toBe(DARK_TERMINAL.red);
    const styled = await m.read(session.id, { clientId: 'test', view: 'screen', format: 'styled' });
    expect((styled.content as StyledContent).rows[0]).toEqual([{ text: 'last words', bg: 1 }]);
  });

  it('refuses a relative or unwritable path, and an unknown session, with what to do', async () => {
    const { manager: m, home } = manager();
    const session = await m.open({ creator: agent, program: 'sh', args: ['-c', 'echo hi; exec cat'] });
    await expect(takeScreenshot(m, session.id, { path: 'shot.png' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/not absolute/),
    });
    await expect(takeScreenshot(m, session.id, { path: path.join(home, 'missing', 'shot.png') })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/ENOENT: its folder does not exist/),
    });
    await expect(takeScreenshot(m, session.id, { path: home })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/will not replace .* \(it is not a file\)/),
    });
    await expect(takeScreenshot(m, 'nope42', {})).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});
