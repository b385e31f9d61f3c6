/**
 * What a session types into its PTY (src/core/session/terminalInput.ts): keys and resizes pass
 * through in order until it is disposed (the terminal let go of, or its master closed: its fd
 * number may be anyone's by then), and nothing after; and whether typed bytes are still on their way.
 */
import { describe, expect, it } from 'vitest';
import { TerminalInput } from '../../../../src/core/session/terminalInput.js';

describe('TerminalInput', () => {
  it('passes writes and resizes through in order, and nothing once disposed', () => {
    const calls: string[] = [];
    const input = new TerminalInput({
      write: (data) => calls.push(`write ${data}`),
      queuedInput: () => 0,
      resize: (cols, rows) => calls.push(`resize ${cols}x${rows}`),
    });
    input.write('ls\r');
    input.resize(100, 30);
    input.write('\x03');
    input.dispose();
    input.write('late\r');
    input.resize(80, 24);
    expect(calls).toEqual(['write ls\r', 'resize 100x30', 'write \x03']);
  });

  it('is in flight while the PTY holds typed bytes the terminal has not taken, and not once disposed', () => {
    let queued = 4096;
    const input = new TerminalInput({ write: () => undefined, queuedInput: () => queued, resize: () => undefined });
    expect(input.inFlight).toBe(true);
    queued = 0;
    expect(input.inFlight).toBe(false);
    queued = 10;
    input.dispose();
    expect(input.inFlight).toBe(false);
  });
});
