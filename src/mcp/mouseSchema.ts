/** `send`'s `mouse` parameter (docs/design.md §3.3): its schema and the names models give its fields. */
import { z } from 'zod';
import type { Alias } from './schemas.js';

// Bounds are checked against the screen by the core, which names its size (mouseInput.ts).
const cell = z.number().int();

export const mouseSchema = z
  .object({
    action: z.enum(['click', 'double_click', 'drag', 'scroll']),
    row: cell,
    col: cell,
    to_row: cell.optional(),
    to_col: cell.optional(),
    button: z.enum(['left', 'middle', 'right']).optional(),
    amount: z.number().int().optional().describe('Wheel steps; <0: up'),
    modifiers: z.array(z.enum(['ctrl', 'alt', 'shift'])).optional(),
  })
  .optional()
  .describe('After text/keys. Cells from 1; the program must turn mouse on.');

/** What models call the mouse's fields. */
export const MOUSE_ALIASES: Record<string, string | Alias> = {
  type: 'action',
  event: 'action',
  y: 'row',
  line: 'row',
  x: 'col',
  column: 'col',
  end_row: 'to_row',
  to_y: 'to_row',
  end_col: 'to_col',
  to_column: 'to_col',
  to_x: 'to_col',
  end_column: 'to_col',
  lines: 'amount',
  steps: 'amount',
  delta: 'amount',
  modifier: 'modifiers',
  mods: 'modifiers',
  keys: 'modifiers',
};

const ACTIONS: Record<string, string> = {
  doubleclick: 'double_click',
  dblclick: 'double_click',
  double: 'double_click',
  wheel: 'scroll',
  leftclick: 'click',
  press: 'click',
  tap: 'click',
};

/**
 * Spellings of the action models use (`double-click`, `dblclick`, `wheel`) become the one the
 * schema names; `right_click` and `middle_click` become a click with that button.
 */
export function normalizeMouse(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const mouse = { ...(value as Record<string, unknown>) };
  const key = Object.keys(mouse).find((k) => ['action', 'type', 'event'].includes(k.toLowerCase()));
  if (key === undefined || typeof mouse[key] !== 'string') return mouse;
  const spelled = (mouse[key] as string).toLowerCase().replace(/[^a-z]/g, '');
  const button = /^(right|middle)click$/.exec(spelled)?.[1];
  if (button) {
    mouse[key] = 'click';
    mouse.button ??= button;
  } else if (ACTIONS[spelled]) {
    mouse[key] = ACTIONS[spelled];
  }
  return mouse;
}
