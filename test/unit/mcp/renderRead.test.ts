/** The text of `read` view `command`: a finished command's exit code and duration. */
import { describe, expect, it } from 'vitest';
import type { ReadRequest, ReadResult } from '../../../src/core/types.js';
import { renderRead } from '../../../src/mcp/tools/read.js';

const request: ReadRequest = { clientId: 'c', view: 'command', format: 'plain' };
const page = { content: 'out', lines: 1, total_lines: 1, truncated: false, waited: 'exit' as const, seq: 3 };

describe('renderRead, view command', () => {
  it('gives a finished command its exit code and duration', () => {
    const result: ReadResult = { ...page, state: 'idle', exit_code: 1, duration_ms: 512 };
    expect(renderRead('abc', request, result)).toEqual({ text: 'out\n[command 3, exit 1, 512 ms, 1 of 1 lines; session abc, idle, waited until exit]' });
  });

  it('gives a running command neither, and says how to wait for it', () => {
    const result: ReadResult = { ...page, state: 'running', exit_code: null, waited: 'timeout' };
    const next = 'wait for it with read {"session":"abc","view":"command","seq":3,"wait":{"exit":true}}, or stop it with kill {"session":"abc"}';
    expect(renderRead('abc', request, result)).toEqual({
      text: `out\n[command 3, 1 of 1 lines; session abc, running, wait timed out (not an error); the command is still running: ${next}]`,
      next,
    });
  });

  it('does not give the command exit code as the ended session one', () => {
    const result: ReadResult = { ...page, state: 'exited', exit_code: 0, duration_ms: 7 };
    expect(renderRead('abc', request, result)).toEqual({ text: 'out\n[command 3, exit 0, 7 ms, 1 of 1 lines; session abc, exited, waited until exit]' });
  });

  it('other views keep the session exit code in the footer', () => {
    const result: ReadResult = { ...page, seq: undefined, state: 'exited', exit_code: 4 };
    expect(renderRead('abc', { ...request, view: 'screen' }, result)).toEqual({
      text: 'out\n[1 of 1 lines; session abc, exited with code 4, waited until exit]',
    });
  });
});
