import {
  DEFAULT_ENCODING_LIMIT,
  encodeMouseEvent,
  MouseActionCode,
  MouseButtonCode,
  reports,
  type MouseEventSpec,
  type MouseState,
} from '../emulation/mouseEncoding.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import type { MouseRequest } from '../types.js';

/** The most wheel steps one scroll sends. */
const MAX_SCROLL_STEPS = 100;

const BUTTONS = { left: MouseButtonCode.Left, middle: MouseButtonCode.Middle, right: MouseButtonCode.Right } as const;

/**
 * `send`'s `mouse` (docs/design.md §3.3) as the bytes a real mouse in xterm.js would make the
 * terminal send, for the tracking mode and encoding the program turned on (mouseEncoding.ts):
 * a click is a press and a release at the cell; a double click two clicks; a drag a press,
 * motion through the cells on the way, and a release at the end; a scroll `amount` wheel
 * events. What the mode does not report is left out, as xterm leaves it out (X10: presses
 * only). A scroll the program does not take as wheel events becomes arrow keys in the
 * alternate screen, where xterm.js does that too. Anything that would reach the program as
 * nothing, or as less than asked, is refused with INVALID_ARGUMENT before a byte is sent.
 */
export function mouseInput(id: string, request: MouseRequest, state: MouseState): Uint8Array {
  const { rows, cols } = state;
  const size = `${rows} rows × ${cols} columns`;
  const cell = (name: string, value: number | undefined, max: number, unit: string): number => {
    if (value === undefined) throw invalid(`mouse.${name} is required for a ${request.action}: pass the ${unit} (1 to ${max}).`);
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw invalid(`mouse.${name}: ${String(value)} is outside the screen of session ${id} (${size}); ${unit}s count from 1 to ${max}.`);
    }
    return value;
  };
  const row = cell('row', request.row, rows, 'row');
  const col = cell('col', request.col, cols, 'column');
  const end = request.action === 'drag' ? { row: cell('to_row', request.to_row, rows, 'row'), col: cell('to_col', request.to_col, cols, 'column') } : undefined;
  const amount = request.action === 'scroll' ? scrollSteps(request.amount) : 0;

  if (state.encoding === undefined) {
    throw invalid(`Session ${id}'s mouse encoding cannot be read from this version of xterm, so a report could be garbled; use keys instead.`);
  }
  if (state.encoding === 'SGR_PIXELS') {
    throw invalid(
      `The program in session ${id} asked for mouse reports in pixels (SGR-Pixels, mode 1016), which a terminal without a screen cannot give; use keys instead.`,
    );
  }
  const wheel = request.action === 'scroll';
  if (wheel && !reports(state.tracking, { button: MouseButtonCode.Wheel, action: MouseActionCode.Down })) {
    // xterm.js turns the wheel into arrow keys when the program takes no wheel events and the screen has no scrollback.
    if (state.alternate) return Buffer.from(`\x1b${state.applicationCursorKeys ? 'O' : '['}${amount < 0 ? 'A' : 'B'}`.repeat(Math.abs(amount)), 'latin1');
    if (state.tracking === 'x10') {
      throw invalid(
        `The program in session ${id} turned on X10 mouse reporting, which reports button presses only, not the wheel; scroll with keys instead (e.g. pagedown, down).`,
      );
    }
  }
  if (state.tracking === 'none') {
    throw invalid(
      `The program in session ${id} has not turned on mouse reporting, so a mouse ${request.action.replace('_', ' ')} would reach it as nothing. ` +
        'Use keys instead, or turn the mouse on in the program (vim: :set mouse=a; less: --mouse; tmux: set -g mouse on).',
    );
  }

  const modifiers = new Set(request.modifiers ?? []);
  const event = (button: MouseEventSpec['button'], action: MouseEventSpec['action'], at: { row: number; col: number }): MouseEventSpec => ({
    ...at,
    button,
    action,
    ctrl: modifiers.has('ctrl'),
    alt: modifiers.has('alt'),
    shift: modifiers.has('shift'),
  });
  const button = BUTTONS[request.button ?? 'left'];
  const start = { row, col };
  const events: MouseEventSpec[] = [];
  const click = (): void => {
    events.push(event(button, MouseActionCode.Down, start), event(button, MouseActionCode.Up, start));
  };
  switch (request.action) {
    case 'click':
      click();
      break;
    case 'double_click':
      click();
      click();
      break;
    case 'drag':
      events.push(event(button, MouseActionCode.Down, start));
      for (const at of path(start, end!)) events.push(event(button, MouseActionCode.Move, at));
      events.push(event(button, MouseActionCode.Up, end!));
      break;
    case 'scroll':
      for (let i = 0; i < Math.abs(amount); i++) events.push(event(MouseButtonCode.Wheel, amount < 0 ? MouseActionCode.Up : MouseActionCode.Down, start));
      break;
  }
  const reportsOf: Uint8Array[] = [];
  for (const e of events) {
    const report = encodeMouseEvent(state.tracking, state.encoding, e);
    if (report === undefined) continue;
    if (report.length === 0) {
      const [name, value] = e.col > DEFAULT_ENCODING_LIMIT ? ['column', e.col] : ['row', e.row];
      throw invalid(
        `The program in session ${id} reads mouse reports in the default (X10) encoding, which cannot carry ${name} ${value}: its limit is ${DEFAULT_ENCODING_LIMIT}, and xterm sends nothing past it. ` +
          `Use a ${name} up to ${DEFAULT_ENCODING_LIMIT}, or keys.`,
      );
    }
    reportsOf.push(report);
  }
  return Buffer.concat(reportsOf);
}

function scrollSteps(amount: number | undefined): number {
  const steps = amount ?? 1;
  if (!Number.isInteger(steps) || steps === 0 || Math.abs(steps) > MAX_SCROLL_STEPS) {
    throw invalid(
      `mouse.amount: ${String(amount)} is not allowed; use a whole number of wheel steps from 1 to ${MAX_SCROLL_STEPS} (down) or -1 to -${MAX_SCROLL_STEPS} (up).`,
    );
  }
  return steps;
}

/** The cells a pointer moving in a straight line from `a` passes on its way to `b`, `b` included. */
function path(a: { row: number; col: number }, b: { row: number; col: number }): { row: number; col: number }[] {
  const steps = Math.max(Math.abs(b.row - a.row), Math.abs(b.col - a.col));
  const cells: { row: number; col: number }[] = [];
  for (let i = 1; i <= steps; i++) {
    cells.push({ row: Math.round(a.row + ((b.row - a.row) * i) / steps), col: Math.round(a.col + ((b.col - a.col) * i) / steps) });
  }
  return cells;
}

function invalid(message: string): SwitchboardError {
  return new SwitchboardError(ErrorCode.InvalidArgument, message);
}
