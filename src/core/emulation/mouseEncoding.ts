/**
 * A mouse event as xterm.js reports it to the program (docs/design.md §3.3 `mouse`): the same
 * protocol restrictions and the same bytes as its CoreMouseService (@xterm/headless 6), for the
 * tracking mode and encoding the program turned on. A copy rather than a call: xterm's service
 * writes its report to the terminal's onData, outside the session's input queue, and keeps state
 * (the last event) of its own. test/unit/core/emulation/mouseEncoding.test.ts compares every
 * combination with xterm's own service, so a change in xterm fails there.
 */

/** What the program turned on (DECSET 9, 1000, 1002, 1003), by xterm's names (`terminal.modes.mouseTrackingMode`). */
export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

/**
 * How reports are encoded: `DEFAULT` (X10 bytes), `SGR` (1006), `SGR_PIXELS` (1016), by xterm's
 * names. xterm.js ignores UTF-8 (1005) and URXVT (1015): with either, it stays at `DEFAULT`.
 */
export type MouseEncoding = 'DEFAULT' | 'SGR' | 'SGR_PIXELS';

/** What a mouse report depends on, read from the session's headless terminal. */
export interface MouseState {
  tracking: MouseTracking;
  /** Undefined where xterm's private state could not be read (xtermInternals.ts). */
  encoding: MouseEncoding | undefined;
  /** The alternate screen is shown (where xterm.js turns an unreported wheel into arrow keys). */
  alternate: boolean;
  applicationCursorKeys: boolean;
  rows: number;
  cols: number;
}

/** xterm's CoreMouseButton: the three buttons, none (a move with no button held) and the wheel. */
export const MouseButtonCode = { Left: 0, Middle: 1, Right: 2, None: 3, Wheel: 4 } as const;
export type MouseButtonCode = (typeof MouseButtonCode)[keyof typeof MouseButtonCode];

/** xterm's CoreMouseAction; with the wheel, Up and Down are its directions. */
export const MouseActionCode = { Up: 0, Down: 1, Move: 32 } as const;
export type MouseActionCode = (typeof MouseActionCode)[keyof typeof MouseActionCode];

export interface MouseEventSpec {
  /** 1-based, as reported. */
  col: number;
  row: number;
  button: MouseButtonCode;
  action: MouseActionCode;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

/** The largest coordinate the default encoding's one byte (value + 32) can carry. */
export const DEFAULT_ENCODING_LIMIT = 223;

/** Whether the tracking mode reports this event at all (xterm's protocol `restrict`). */
export function reports(tracking: MouseTracking, e: Pick<MouseEventSpec, 'button' | 'action'>): boolean {
  switch (tracking) {
    case 'none':
      return false;
    case 'x10':
      return e.button !== MouseButtonCode.Wheel && e.action === MouseActionCode.Down;
    case 'vt200':
      return e.action !== MouseActionCode.Move;
    case 'drag':
      return !(e.action === MouseActionCode.Move && e.button === MouseButtonCode.None);
    case 'any':
      return true;
  }
}

/**
 * The report's bytes, or undefined when the tracking mode does not report the event. Empty when
 * the encoding cannot carry it (the default encoding past column or row 223: xterm.js then sends
 * nothing). `SGR_PIXELS` needs pixel positions, which a headless terminal has not: the caller
 * refuses it before.
 */
export function encodeMouseEvent(tracking: MouseTracking, encoding: Exclude<MouseEncoding, 'SGR_PIXELS'>, event: MouseEventSpec): Uint8Array | undefined {
  if (!reports(tracking, event)) return undefined;
  // X10 mode reports no modifiers.
  const e = tracking === 'x10' ? { ...event, ctrl: false, alt: false, shift: false } : event;
  if (encoding === 'SGR') {
    const final = e.action === MouseActionCode.Up && e.button !== MouseButtonCode.Wheel ? 'm' : 'M';
    return Buffer.from(`\x1b[<${eventCode(e, true)};${e.col};${e.row}${final}`, 'latin1');
  }
  const params = [eventCode(e, false) + 32, e.col + 32, e.row + 32];
  if (params.some((p) => p > 255)) return new Uint8Array(0);
  // Bytes, not characters: a coordinate past 95 is one byte above 127, never UTF-8.
  return Uint8Array.from([0x1b, 0x5b, 0x4d, ...params]);
}

function eventCode(e: MouseEventSpec, isSGR: boolean): number {
  let code = (e.ctrl ? 16 : 0) | (e.shift ? 4 : 0) | (e.alt ? 8 : 0);
  if (e.button === MouseButtonCode.Wheel) return code | 64 | e.action;
  code |= e.button & 3;
  if (e.action === MouseActionCode.Move) code |= MouseActionCode.Move;
  // Only SGR says which button was released; the others report button 3.
  else if (e.action === MouseActionCode.Up && !isSGR) code |= MouseButtonCode.None;
  return code;
}
