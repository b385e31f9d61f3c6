/**
 * The mouse reports of src/core/emulation/mouseEncoding.ts (docs/design.md §3.3) are xterm.js's
 * own: for every tracking mode a program can turn on (9, 1000, 1002, 1003), every encoding
 * (default, SGR 1006, and UTF-8 1005 / URXVT 1015, which xterm.js ignores), every button and
 * action, every set of modifiers and positions on both sides of the default encoding's limit,
 * the bytes equal those xterm's CoreMouseService sends for the same event on a terminal in the
 * same modes. Then the documented bits, spelled out.
 */
import headless from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeMouseEvent, MouseActionCode, MouseButtonCode, type MouseEventSpec, type MouseTracking } from '../../../../src/core/emulation/mouseEncoding.js';
import { mouseEncoding, xtermReportsMouseEvent } from '../../../../src/core/emulation/xtermInternals.js';

const terminals: headless.Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

const TRACKING: Record<MouseTracking, string> = { none: '', x10: '\x1b[?9h', vt200: '\x1b[?1000h', drag: '\x1b[?1002h', any: '\x1b[?1003h' };
const ENCODINGS = { default: '', sgr: '\x1b[?1006h', utf8: '\x1b[?1005h', urxvt: '\x1b[?1015h' };
const BUTTONS = [MouseButtonCode.Left, MouseButtonCode.Middle, MouseButtonCode.Right, MouseButtonCode.None, MouseButtonCode.Wheel];
const ACTIONS = [MouseActionCode.Up, MouseActionCode.Down, MouseActionCode.Move];
/** 1-based: the first cell, a byte past 127 in the default encoding, its last cell, and one past it. */
const POSITIONS = [
  [1, 1],
  [96, 2],
  [223, 223],
  [224, 5],
  [5, 224],
];

async function xtermIn(modes: string): Promise<{ terminal: headless.Terminal; sent: Buffer[] }> {
  const terminal = new headless.Terminal({ cols: 240, rows: 240, allowProposedApi: true });
  terminals.push(terminal);
  const sent: Buffer[] = [];
  // The default encoding goes out as binary (one byte per character), the others as text.
  terminal.onBinary((data) => sent.push(Buffer.from(data, 'latin1')));
  terminal.onData((data) => sent.push(Buffer.from(data, 'utf8')));
  await new Promise<void>((resolve) => terminal.write(modes, resolve));
  return { terminal, sent };
}

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? 'not reported' : Buffer.from(bytes).toString('hex');
}

describe('mouse reports', () => {
  it("are xterm's own bytes for every mode, encoding, button, action, modifier and position", async () => {
    let compared = 0;
    let reported = 0;
    for (const [tracking, setTracking] of Object.entries(TRACKING) as [MouseTracking, string][]) {
      for (const [name, setEncoding] of Object.entries(ENCODINGS)) {
        const { terminal, sent } = await xtermIn(setTracking + setEncoding);
        const encoding = mouseEncoding(terminal);
        if (encoding !== 'DEFAULT' && encoding !== 'SGR') throw new Error(`unexpected encoding ${String(encoding)} for ${name}`);
        for (const button of BUTTONS) {
          for (const action of ACTIONS) {
            // Combinations no mouse makes (xterm drops them before its protocol): never sent.
            if (button === MouseButtonCode.Wheel && action === MouseActionCode.Move) continue;
            if (button === MouseButtonCode.None && action !== MouseActionCode.Move) continue;
            for (let mods = 0; mods < 8; mods++) {
              for (const [col, row] of POSITIONS) {
                const event: MouseEventSpec = { col: col!, row: row!, button, action, ctrl: (mods & 1) !== 0, alt: (mods & 2) !== 0, shift: (mods & 4) !== 0 };
                const ours = encodeMouseEvent(tracking, encoding, event);
                const theirsReported = xtermReportsMouseEvent(terminal, { ...event, col: col! - 1, row: row! - 1 });
                const theirs = sent.splice(0);
                const what = `${tracking} ${name} ${JSON.stringify(event)}`;
                expect(ours !== undefined, `${what}: reported`).toBe(theirsReported);
                expect(hex(ours), what).toBe(theirsReported ? hex(Buffer.concat(theirs)) : 'not reported');
                compared++;
                if (ours?.length) reported++;
              }
            }
          }
        }
      }
    }
    // Every combination ran, and most were reported: the comparison is not vacuous.
    expect(compared).toBe(5 * 4 * 12 * 8 * POSITIONS.length);
    expect(reported).toBeGreaterThan(compared / 3);
  });

  const at = (button: MouseEventSpec['button'], action: MouseEventSpec['action'], more: Partial<MouseEventSpec> = {}): MouseEventSpec => ({
    col: 3,
    row: 2,
    button,
    action,
    ctrl: false,
    alt: false,
    shift: false,
    ...more,
  });
  const text = (bytes: Uint8Array | undefined): string | undefined => (bytes === undefined ? undefined : Buffer.from(bytes).toString('latin1'));

  it('SGR: press M, release m with its button, modifier bits shift 4, alt 8, ctrl 16, motion 32, wheel 64/65', () => {
    expect(text(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Down)))).toBe('\x1b[<0;3;2M');
    expect(text(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Right, MouseActionCode.Up)))).toBe('\x1b[<2;3;2m');
    expect(text(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Down, { shift: true })))).toBe('\x1b[<4;3;2M');
    expect(text(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Down, { alt: true })))).toBe('\x1b[<8;3;2M');
    expect(text(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Middle, MouseActionCode.Down, { ctrl: true })))).toBe('\x1b[<17;3;2M');
    expect(text(encodeMouseEvent('drag', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Move)))).toBe('\x1b[<32;3;2M');
    expect(text(encodeMouseEvent('drag', 'SGR', at(MouseButtonCode.Wheel, MouseActionCode.Up)))).toBe('\x1b[<64;3;2M');
    expect(text(encodeMouseEvent('drag', 'SGR', at(MouseButtonCode.Wheel, MouseActionCode.Down)))).toBe('\x1b[<65;3;2M');
    // No limit on coordinates.
    expect(text(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Down, { col: 400, row: 300 })))).toBe('\x1b[<0;400;300M');
  });

  it('default: CSI M and three bytes of value + 32; a release is button 3; nothing past column or row 223', () => {
    expect(text(encodeMouseEvent('vt200', 'DEFAULT', at(MouseButtonCode.Left, MouseActionCode.Down)))).toBe('\x1b[M #"');
    expect(text(encodeMouseEvent('vt200', 'DEFAULT', at(MouseButtonCode.Right, MouseActionCode.Up)))).toBe('\x1b[M##"');
    expect(text(encodeMouseEvent('vt200', 'DEFAULT', at(MouseButtonCode.Wheel, MouseActionCode.Down)))).toBe('\x1b[Ma#"');
    // Column 200 is the byte 232, not its UTF-8 encoding.
    expect([...encodeMouseEvent('vt200', 'DEFAULT', at(MouseButtonCode.Left, MouseActionCode.Down, { col: 200 }))!]).toEqual([0x1b, 0x5b, 0x4d, 32, 232, 34]);
    expect(encodeMouseEvent('vt200', 'DEFAULT', at(MouseButtonCode.Left, MouseActionCode.Down, { col: 223 }))).toHaveLength(6);
    expect(encodeMouseEvent('vt200', 'DEFAULT', at(MouseButtonCode.Left, MouseActionCode.Down, { col: 224 }))).toHaveLength(0);
  });

  it('each tracking mode reports what xterm reports: X10 presses only, without modifiers; 1000 no motion; 1002 motion with a button; 1003 any motion', () => {
    expect(text(encodeMouseEvent('x10', 'DEFAULT', at(MouseButtonCode.Left, MouseActionCode.Down, { ctrl: true, shift: true })))).toBe('\x1b[M #"');
    expect(encodeMouseEvent('x10', 'DEFAULT', at(MouseButtonCode.Left, MouseActionCode.Up))).toBeUndefined();
    expect(encodeMouseEvent('x10', 'DEFAULT', at(MouseButtonCode.Wheel, MouseActionCode.Down))).toBeUndefined();
    expect(encodeMouseEvent('vt200', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Move))).toBeUndefined();
    expect(encodeMouseEvent('drag', 'SGR', at(MouseButtonCode.None, MouseActionCode.Move))).toBeUndefined();
    expect(text(encodeMouseEvent('any', 'SGR', at(MouseButtonCode.None, MouseActionCode.Move)))).toBe('\x1b[<35;3;2M');
    expect(encodeMouseEvent('none', 'SGR', at(MouseButtonCode.Left, MouseActionCode.Down))).toBeUndefined();
  });
});
