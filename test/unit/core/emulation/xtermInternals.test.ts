/**
 * What Switchboard reads and writes of @xterm/headless beyond its public API
 * (src/core/emulation/xtermInternals.ts): the installed version is the one it was checked against, the
 * private fields have the shape it reads, and each accessor tells what xterm's public API says
 * of the same terminal. A failure names what changed, so an upgrade of xterm stops here rather
 * than in a session (where the compactor and fast-forward would quietly switch themselves off).
 */
import headless from '@xterm/headless';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BLANK_CELL_CONTENT,
  CELL_WORDS,
  cells,
  cursorHidden,
  isWrapped,
  maps,
  mouseEncoding,
  ownMaps,
  parserIsInGround,
  rowLength,
  rowStore,
  scrollRegionIsFullScreen,
  setCells,
  shapeProblems,
  shareEmptyMaps,
  XTERM_HEADLESS_VERSION,
  xtermReportsMouseEvent,
} from '../../../../src/core/emulation/xtermInternals.js';

const terminals: headless.Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

function terminal(cols = 10, rows = 5, scrollback = 20): headless.Terminal {
  const t = new headless.Terminal({ cols, rows, scrollback, allowProposedApi: true });
  terminals.push(t);
  return t;
}

function write(t: headless.Terminal, data: string): Promise<void> {
  return new Promise((resolve) => t.write(data, resolve));
}

describe('xterm internals', () => {
  it('are read from the @xterm/headless version they were checked against', () => {
    const installed = (createRequire(import.meta.url)('@xterm/headless/package.json') as { version: string }).version;
    expect(
      installed,
      `@xterm/headless ${installed} is installed; xtermInternals.ts was checked against ${XTERM_HEADLESS_VERSION}: check what it reads, then update XTERM_HEADLESS_VERSION and the exact version in package.json`,
    ).toBe(XTERM_HEADLESS_VERSION);
  });

  it('have the shape they are read with', () => {
    expect(shapeProblems(terminal())).toEqual([]);
    expect(rowStore(terminal())).toBeDefined();
  });

  it("tell the parser's state: between sequences or inside one", async () => {
    const t = terminal();
    expect(parserIsInGround(t)).toBe(true);
    await write(t, 'text \x1b[3');
    expect(parserIsInGround(t)).toBe(false);
    await write(t, '1m red');
    expect(parserIsInGround(t)).toBe(true);
  });

  it('tell whether the program hid the cursor (DECTCEM)', async () => {
    const t = terminal();
    expect(cursorHidden(t)).toBe(false);
    await write(t, '\x1b[?25l');
    expect(cursorHidden(t)).toBe(true);
    await write(t, '\x1b[?25h');
    expect(cursorHidden(t)).toBe(false);
  });

  it('tell whether the scroll region spans the screen', async () => {
    const t = terminal();
    expect(scrollRegionIsFullScreen(t)).toBe(true);
    await write(t, '\x1b[2;4r');
    expect(scrollRegionIsFullScreen(t)).toBe(false);
    await write(t, '\x1b[r');
    expect(scrollRegionIsFullScreen(t)).toBe(true);
  });

  it("read and change the normal buffer's rows as the public API sees them", async () => {
    const t = terminal();
    const store = rowStore(t)!;
    let scrolled = 0;
    // The compactor looks at a row as it enters the scrollback: onScroll fires once per row.
    t.onScroll(() => scrolled++);
    await write(t, Array.from({ length: 12 }, (_, i) => `row ${i}\r\n`).join('') + 'x'.repeat(13));
    const normal = t.buffer.normal;
    expect(store.normalIsActive()).toBe(true);
    expect(store.scrollbackLength()).toBe(normal.baseY);
    expect(scrolled).toBe(normal.baseY);
    expect(store.rowCount()).toBe(normal.length);
    expect(store.isFull()).toBe(false);
    const first = store.row(0)!;
    expect(rowLength(first)).toBe(t.cols);
    expect(cells(first).length).toBe(t.cols * CELL_WORDS);
    // A blank cell past the text: no character, width 1, default colours.
    expect([...cells(first).subarray(9 * CELL_WORDS, 10 * CELL_WORDS)]).toEqual([BLANK_CELL_CONTENT, 0, 0]);
    // Cut to its first six cells, in memory of another array: the public API reads the same text.
    const copy = new Uint32Array(64);
    copy.set(cells(first).subarray(0, 6 * CELL_WORDS));
    setCells(first, copy.subarray(0, 6 * CELL_WORDS), 6);
    expect(normal.getLine(0)!.length).toBe(6);
    expect(normal.getLine(0)!.translateToString(true)).toBe('row 0');
    // The last line wrapped onto the cursor's row.
    expect(isWrapped(store.row(normal.length - 1)!)).toBe(normal.getLine(normal.length - 1)!.isWrapped);
    expect(isWrapped(store.row(normal.length - 1)!)).toBe(true);
    await write(t, '\x1b[?1049h');
    expect(store.normalIsActive()).toBe(false);
  });

  it('follow the new normal buffer a reset (RIS) makes', async () => {
    const t = terminal();
    const store = rowStore(t)!;
    await write(t, 'a\r\n'.repeat(8));
    await write(t, '\x1bc');
    await write(t, 'b\r\n'.repeat(7));
    expect(store.scrollbackLength()).toBe(t.buffer.normal.baseY);
    expect(store.scrollbackLength()).toBe(3);
    expect(cells(store.row(0)!)[0]! & 0x1fffff).toBe('b'.charCodeAt(0));
  });

  it("share rows' empty maps and give them back", async () => {
    const t = terminal();
    const store = rowStore(t)!;
    await write(t, 'one\r\ntwo\r\n');
    const [a, b] = [store.row(0)!, store.row(1)!];
    expect(maps(a)[0]).not.toBe(maps(b)[0]);
    shareEmptyMaps(a);
    shareEmptyMaps(b);
    expect(new Set([...maps(a), ...maps(b)]).size).toBe(1);
    ownMaps(a);
    expect(maps(a)[0]).not.toBe(maps(b)[0]);
    expect(maps(a)[1]).not.toBe(maps(b)[1]);
  });

  it('reach the memory cleanup xterm queues after a narrowing resize', async () => {
    const t = terminal(40, 5);
    const store = rowStore(t)!;
    await write(t, Array.from({ length: 30 }, (_, i) => `${i}\r\n`).join(''));
    t.resize(15, 5);
    // Queued: each row under half used gets an array of its own when it runs.
    store.cancelMemoryCleanup();
    store.flushMemoryCleanup();
    expect(t.buffer.normal.getLine(0)!.translateToString(true)).toBe('6');
  });

  it('read the mouse encoding the program turned on, as DECRQM answers for it', async () => {
    const t = terminal(10, 5);
    const answers: string[] = [];
    t.onData((data) => answers.push(data));
    expect(mouseEncoding(t)).toBe('DEFAULT');
    await write(t, '\x1b[?1006h\x1b[?1006$p');
    expect(mouseEncoding(t)).toBe('SGR');
    expect(answers).toEqual(['\x1b[?1006;1$y']);
    await write(t, '\x1b[?1016h');
    expect(mouseEncoding(t)).toBe('SGR_PIXELS');
    await write(t, '\x1b[?1016l');
    expect(mouseEncoding(t)).toBe('DEFAULT');
    // xterm.js does not support UTF-8 (1005) or URXVT (1015) reports: they leave the encoding as it was.
    await write(t, '\x1b[?1005h\x1b[?1015h');
    expect(mouseEncoding(t)).toBe('DEFAULT');
  });

  it("report a mouse event through xterm's own service, as a browser's mouse would", async () => {
    const t = terminal(10, 5);
    const sent: string[] = [];
    t.onData((data) => sent.push(data));
    const press = { col: 2, row: 1, button: 0, action: 1, ctrl: false, alt: false, shift: false };
    expect(xtermReportsMouseEvent(t, { ...press })).toBe(false);
    await write(t, '\x1b[?1000h\x1b[?1006h');
    expect(xtermReportsMouseEvent(t, { ...press })).toBe(true);
    expect(sent).toEqual(['\x1b[<0;3;2M']);
  });
});
