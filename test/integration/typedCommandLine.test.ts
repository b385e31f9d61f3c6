/**
 * The command line of a command the person types, as recorded (timeline, commands.jsonl,
 * `list`). bash prints no E mark (it would cost a fork per command): the tracker reads the
 * line from the screen between the prompt's B mark and the C mark, continuation prompts
 * (F…G) left out. zsh and fish report it in their E mark.
 */
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { CommandRecord } from '../../src/core/types.js';
import { managersPerTest } from './helpers/core.js';
import { shellPath } from './helpers/shells.js';

const { manager } = managersPerTest();
const person = { kind: 'user' } as const;

/** Types `input` as the person and resolves with the next finished command. */
function typeCommand(session: TerminalSession, input: string, timeoutMs = 10_000): Promise<CommandRecord> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`no command finished within ${timeoutMs} ms after typing ${JSON.stringify(input)}`));
    }, timeoutMs);
    const subscription = session.onDidFinishCommand((record) => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(record);
    });
    session.userInput(input);
  });
}

async function personShell(shell: string, rcFiles: Record<string, string> = {}): Promise<TerminalSession> {
  const session = await manager({ shell, rcFiles, settings: { cols: 40 } }).manager.open({ creator: person });
  session.takeOver();
  return session;
}

describe('bash: the command line read from the screen', () => {
  it('is what was typed: one line, a leading space, a line longer than the terminal', async () => {
    const session = await personShell(shellPath('bash'), { '.bashrc': 'HISTCONTROL=ignoreboth\n' });
    expect((await typeCommand(session, 'echo one\r')).command).toBe('echo one');
    // Not in history (ignorespace): the screen still shows it.
    expect((await typeCommand(session, ' echo two\r')).command).toBe('echo two');
    const long = `echo ${'x'.repeat(70)}`; // wraps: the terminal is 40 columns wide
    expect((await typeCommand(session, `${long}\r`)).command).toBe(long);
  });

  it('leaves out continuation prompts, the person’s own PS2 included', async () => {
    const session = await personShell(shellPath('bash'), { '.bashrc': "PS2='more> '\nPS1='two-line\\n\\$ '\n" });
    const record = await typeCommand(session, "printf '%s\\n' 'a\rb'\r");
    expect(record.command).toBe("printf '%s\\n' 'a\nb'");
    expect(record.exit_code).toBe(0);
  });

  it('takes the line after the last prompt when the prompt is redrawn (Ctrl-L)', async () => {
    const session = await personShell(shellPath('bash'));
    await typeCommand(session, 'true\r');
    expect((await typeCommand(session, 'echo drawn\x0c\r')).command).toBe('echo drawn');
  });
});

describe.each(['zsh', 'fish'] as const)('%s: the command line from the E mark', (shell) => {
  it('is what was typed', async () => {
    const session = await personShell(shellPath(shell));
    expect((await typeCommand(session, 'echo one\r')).command).toBe('echo one');
  });
});
