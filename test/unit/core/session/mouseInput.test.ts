/**
 * `send`'s `mouse` planned into reports (src/core/session/mouseInput.ts, docs/design.md §3.3):
 * which events each action makes, what each tracking mode leaves out, the wheel as arrow keys
 * in the alternate screen where xterm.js does it, and every refusal with what it names.
 */
import { describe, expect, it } from 'vitest';
import type { MouseState } from '../../../../src/core/emulation/mouseEncoding.js';
import { mouseInput } from '../../../../src/core/session/mouseInput.js';
import type { MouseRequest } from '../../../../src/core/types.js';

const SGR_DRAG: MouseState = { tracking: 'drag', encoding: 'SGR', alternate: true, applicationCursorKeys: false, rows: 24, cols: 80 };

function sent(request: MouseRequest, state: Partial<MouseState> = {}): string {
  return Buffer.from(mouseInput('k3f9q2', request, { ...SGR_DRAG, ...state }))
    .toString('latin1')
    .replaceAll('\x1b', '^[');
}

function refusal(request: MouseRequest, state: Partial<MouseState> = {}): string {
  try {
    mouseInput('k3f9q2', request, { ...SGR_DRAG, ...state });
  } catch (error) {
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    return (error as Error).message;
  }
  throw new Error(`not refused: ${JSON.stringify(request)}`);
}

describe('mouse actions', () => {
  it('click: press and release at the cell, with the button and modifiers asked for', () => {
    expect(sent({ action: 'click', row: 2, col: 3 })).toBe('^[[<0;3;2M^[[<0;3;2m');
    expect(sent({ action: 'click', row: 2, col: 3, button: 'right', modifiers: ['ctrl', 'alt'] })).toBe('^[[<26;3;2M^[[<26;3;2m');
  });

  it('double click: two clicks', () => {
    expect(sent({ action: 'double_click', row: 1, col: 1, button: 'middle' })).toBe('^[[<1;1;1M^[[<1;1;1m^[[<1;1;1M^[[<1;1;1m');
  });

  it('drag: press, motion through each cell of a straight line, release; no motion where the mode reports none', () => {
    expect(sent({ action: 'drag', row: 1, col: 1, to_row: 3, to_col: 5 })).toBe('^[[<0;1;1M^[[<32;2;2M^[[<32;3;2M^[[<32;4;3M^[[<32;5;3M^[[<0;5;3m');
    expect(sent({ action: 'drag', row: 1, col: 1, to_row: 3, to_col: 5 }, { tracking: 'vt200' })).toBe('^[[<0;1;1M^[[<0;5;3m');
    expect(sent({ action: 'drag', row: 4, col: 4, to_row: 4, to_col: 4 })).toBe('^[[<0;4;4M^[[<0;4;4m');
    expect(sent({ action: 'drag', row: 1, col: 1, to_row: 3, to_col: 5 }, { tracking: 'x10', encoding: 'DEFAULT' })).toBe('^[[M !!');
  });

  it('scroll: one wheel event a step, down (65) for positive amounts and up (64) for negative; one step by default', () => {
    expect(sent({ action: 'scroll', row: 5, col: 6, amount: 2 })).toBe('^[[<65;6;5M^[[<65;6;5M');
    expect(sent({ action: 'scroll', row: 5, col: 6, amount: -1 })).toBe('^[[<64;6;5M');
    expect(sent({ action: 'scroll', row: 5, col: 6 })).toBe('^[[<65;6;5M');
  });

  it('scroll without wheel reporting, in the alternate screen: arrow keys in the cursor mode the program set, as xterm.js sends', () => {
    expect(sent({ action: 'scroll', row: 5, col: 6, amount: 3 }, { tracking: 'none' })).toBe('^[[B^[[B^[[B');
    expect(sent({ action: 'scroll', row: 5, col: 6, amount: -2 }, { tracking: 'none', applicationCursorKeys: true })).toBe('^[OA^[OA');
    expect(sent({ action: 'scroll', row: 5, col: 6, amount: 1 }, { tracking: 'x10' })).toBe('^[[B');
  });
});

describe('mouse refusals', () => {
  it('no mouse reporting: says so, and what to do instead', () => {
    expect(refusal({ action: 'double_click', row: 1, col: 1 }, { tracking: 'none' })).toMatch(
      /^The program in session k3f9q2 has not turned on mouse reporting, so a mouse double click would reach it as nothing\. Use keys instead, or turn the mouse on in the program \(vim: :set mouse=a/,
    );
    // In the normal screen xterm.js scrolls its own view: the program gets nothing.
    expect(refusal({ action: 'scroll', row: 1, col: 1 }, { tracking: 'none', alternate: false })).toMatch(/has not turned on mouse reporting/);
    expect(refusal({ action: 'scroll', row: 1, col: 1 }, { tracking: 'x10', alternate: false })).toMatch(
      /X10 mouse reporting, which reports button presses only/,
    );
  });

  it('outside the screen: names the value and the screen size', () => {
    expect(refusal({ action: 'click', row: 0, col: 1 })).toBe(
      'mouse.row: 0 is outside the screen of session k3f9q2 (24 rows × 80 columns); rows count from 1 to 24.',
    );
    expect(refusal({ action: 'click', row: 1, col: 81 })).toMatch(/^mouse\.col: 81 is outside .*columns count from 1 to 80\.$/);
    expect(refusal({ action: 'drag', row: 1, col: 1, to_row: 25, to_col: 1 })).toMatch(/^mouse\.to_row: 25 is outside/);
    expect(refusal({ action: 'drag', row: 1, col: 1 })).toBe('mouse.to_row is required for a drag: pass the row (1 to 24).');
    expect(refusal({ action: 'click', row: 1.5, col: 1 })).toMatch(/^mouse\.row: 1\.5 is outside/);
  });

  it('a scroll amount of 0, a fraction or more than 100 steps', () => {
    for (const amount of [0, 1.5, 101, -101])
      expect(refusal({ action: 'scroll', row: 1, col: 1, amount })).toMatch(/^mouse\.amount: .* whole number of wheel steps from 1 to 100/);
  });

  it('past column or row 223 in the default encoding, where xterm sends nothing: before anything is sent', () => {
    const wide = { encoding: 'DEFAULT' as const, cols: 300, rows: 300 };
    expect(sent({ action: 'click', row: 223, col: 223 }, wide)).toBe('^[[M \xff\xff^[[M#\xff\xff');
    expect(refusal({ action: 'click', row: 1, col: 224 }, wide)).toMatch(/default \(X10\) encoding, which cannot carry column 224: its limit is 223/);
    expect(refusal({ action: 'drag', row: 1, col: 1, to_row: 230, to_col: 1 }, wide)).toMatch(/cannot carry row 224/);
    // SGR has no limit.
    expect(sent({ action: 'click', row: 1, col: 300 }, { ...wide, encoding: 'SGR' })).toBe('^[[<0;300;1M^[[<0;300;1m');
  });

  it('pixel reports (1016), or an encoding that could not be read', () => {
    expect(refusal({ action: 'click', row: 1, col: 1 }, { encoding: 'SGR_PIXELS' })).toMatch(/in pixels \(SGR-Pixels, mode 1016\)/);
    expect(refusal({ action: 'click', row: 1, col: 1 }, { encoding: undefined })).toMatch(/encoding cannot be read/);
  });
});
