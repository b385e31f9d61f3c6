/**
 * `send` `resize` (docs/design.md §3.3) on real programs: the PTY and the headless terminal
 * resize together, before the send's keys, so a shell's `stty size` and vim's redraw (SIGWINCH)
 * show the new size; refused while the person controls the session; the agent's resize is kept
 * for the person (§5.2) until anyone resizes again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { ReadRequest } from '../../src/core/types.js';
import { agent, managersPerTest } from './helpers/core.js';

const { manager } = managersPerTest();

function read(session: TerminalSession, request: Partial<ReadRequest>): ReturnType<TerminalSession['read']> {
  return session.read({ clientId: 'test', view: 'screen', format: 'plain', ...request });
}

describe('send resize', () => {
  it('a shell: resize with stty size typed in the same send → the program sees the new size, list and read too', async () => {
    const session = await manager().manager.open({ creator: agent, rows: 24, cols: 80 });
    const result = await session.send({
      clientId: 'test',
      clientName: 'resize-test 2.0',
      resize: { rows: 40, cols: 120 },
      text: 'stty size',
      keys: ['enter'],
      wait: { pattern: '^40 120$', timeout_ms: 10_000 },
    });
    expect(result.waited).toBe('pattern');
    expect(session.info()).toMatchObject({ rows: 40, cols: 120 });
    const screen = await read(session, {});
    expect(screen.lines).toBe(40);
    expect(session.agentResize).toMatchObject({ client: 'resize-test 2.0', rows: 40, cols: 120, at: expect.any(String) });
  });

  it('vim redraws at the new size: as many screen rows, a long line as wide as the terminal, the ruler on the last row', async () => {
    const { manager: m, home } = manager();
    const file = path.join(home, 'wide.txt');
    fs.writeFileSync(file, `${'x'.repeat(300)}\nsecond\n`);
    const vim = await m.open({
      creator: agent,
      program: 'vim',
      args: ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-c', 'set nowrap ruler laststatus=0', file],
      rows: 24,
      cols: 80,
      cwd: home,
    });
    const before = await read(vim, { wait: { pattern: '1,1', timeout_ms: 10_000 } });
    const rows = (content: string): string[] => content.split('\n');
    expect(rows(before.content as string)[0]).toBe('x'.repeat(80));

    // Vim's ruler shows the cursor; moving it after the resize proves vim draws at the new size.
    const resized = await vim.send({ clientId: 'test', resize: { rows: 30, cols: 100 }, keys: ['j'], wait: { pattern: '2,1', timeout_ms: 10_000 } });
    expect(resized.waited).toBe('pattern');
    const after = await read(vim, {});
    expect(after.lines).toBe(30);
    const lines = vim.info();
    expect({ rows: lines.rows, cols: lines.cols }).toEqual({ rows: 30, cols: 100 });
    // The whole screen (untrimmed rows) as vim drew it at 100 columns.
    const drawn = rows(after.content as string);
    expect(drawn[0]).toBe('x'.repeat(100));
    expect(drawn[1]).toBe('second');
    expect(drawn[2]).toBe('~');
    // `read` trims the trailing blank rows only: vim fills rows 3…29 with `~`, row 30 is the ruler.
    expect(drawn).toHaveLength(30);
    expect(drawn[29]).toMatch(/2,1\s+All$/);
    expect(drawn.slice(2, 29).every((row) => row === '~')).toBe(true);
  });

  it('is refused with SESSION_CONTROLLED_BY_USER while the person controls the session, and the size stays', async () => {
    const session = await manager().manager.open({ creator: agent, rows: 24, cols: 80 });
    session.takeOver();
    await expect(session.send({ clientId: 'test', resize: { rows: 40, cols: 120 } })).rejects.toMatchObject({ code: 'SESSION_CONTROLLED_BY_USER' });
    expect(session.info()).toMatchObject({ rows: 24, cols: 80 });
    expect(session.agentResize).toBeNull();
  });

  it('forgets the agent’s resize once anyone else resizes (the person’s tab size wins)', async () => {
    const session = await manager().manager.open({ creator: agent, rows: 24, cols: 80 });
    await session.send({ clientId: 'test', clientName: 'resize-test 2.0', resize: { rows: 30, cols: 90 } });
    expect(session.agentResize).toMatchObject({ rows: 30, cols: 90 });
    session.takeOver();
    session.resize(132, 43);
    expect(session.agentResize).toBeNull();
    expect(session.info()).toMatchObject({ rows: 43, cols: 132 });
  });
});
