/**
 * The shell integration survives what agents and rc files do mid-session (docs/design.md §2.5):
 * real shells through the core's TerminalSession. After each reset, `echo ok; false` must come
 * back `completed` with its own output and exit code, and the session must not be busy after.
 * Where the marks are lost for good (`exec bash`), the reset command itself is ended by the prompt
 * fallback and the integration re-armed. A timeout reached would give `running`: the status is
 * the proof, no clock is read.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TerminalSession } from '../../src/core/session/terminalSession.js';
import type { ExecuteResult } from '../../src/core/types.js';
import { agent, managersPerTest } from './helpers/core.js';
import { shellPath, type ShellName } from './helpers/shells.js';

const { manager } = managersPerTest();

function run(session: TerminalSession, command: string, timeoutMs = 15_000): Promise<ExecuteResult> {
  return session.execute({ command, timeoutMs, maxLines: 200 });
}

/** Warnings of the session under test: a prompt that lost its A/B marks is warned about. */
let warnings: string[] = [];

async function open(shell: ShellName, rcFiles: Record<string, string> = {}): Promise<{ session: TerminalSession; home: string }> {
  warnings = [];
  const { manager: m, home } = manager({ shell: shellPath(shell), rcFiles, onWarning: (message) => warnings.push(message) });
  return { session: await m.open({ creator: agent }), home };
}

/**
 * The integration works after a reset: exact output, exit code, marks (each prompt drew its B
 * mark: no warning); and the session is free again.
 */
async function expectIntegrated(session: TerminalSession): Promise<void> {
  const after = await run(session, 'echo ok; false');
  expect(after).toMatchObject({ status: 'completed', output: 'ok', exit_code: 1, detection: 'shell_integration' });
  const again = await run(session, 'echo again');
  expect(again).toMatchObject({ status: 'completed', output: 'again', exit_code: 0, detection: 'shell_integration' });
  expect(session.state).toBe('idle');
  expect(warnings).toEqual([]);
}

describe('bash keeps its marks', () => {
  it('after PROMPT_COMMAND= (a string): PS1 prints the D, then our entries are put back', async () => {
    const { session } = await open('bash');
    const reset = await run(session, 'PROMPT_COMMAND="x=1"');
    expect(reset).toMatchObject({ status: 'completed', exit_code: 0, output: '', detection: 'shell_integration' });
    await expectIntegrated(session);
    const kept = await run(session, 'declare -p PROMPT_COMMAND');
    expect(kept.output).toBe('declare -a PROMPT_COMMAND=([0]="__sb_precmd" [1]="x=1" [2]="__sb_postcmd")');
  });

  it('after PROMPT_COMMAND=() (an array), and the status of a failing reset is kept', async () => {
    const { session } = await open('bash');
    const reset = await run(session, 'PROMPT_COMMAND=(x=1 "y=2"); (exit 3)');
    expect(reset).toMatchObject({ status: 'completed', exit_code: 3, detection: 'shell_integration' });
    await expectIntegrated(session);
  });

  it('after PS1=', async () => {
    const { session } = await open('bash');
    expect(await run(session, "PS1='custom$ '")).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });

  it('after trap … DEBUG', async () => {
    const { session } = await open('bash');
    expect(await run(session, "trap 'x=1' DEBUG")).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });

  it('after source ~/.bashrc of an rc file that assigns PROMPT_COMMAND', async () => {
    const { session } = await open('bash', { '.bashrc': 'PROMPT_COMMAND="history -a"\n' });
    expect(await run(session, 'source ~/.bashrc')).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });

  it("after a virtualenv's activate and deactivate: its prefix shows, PS1 is not exported with the nonce", async () => {
    const { session, home } = await open('bash');
    const venv = path.join(home, 'venv');
    expect(await run(session, `python3 -m venv --without-pip ${venv}`, 120_000)).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(await run(session, `source ${venv}/bin/activate`)).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
    const screen = await session.read({ clientId: 'test', view: 'screen', format: 'plain' });
    expect(screen.content).toMatch(/^\(venv\) /m);
    // activate prefixed our wrapped PS1: it is wrapped anew, once, not inside the old marks.
    expect(await run(session, 'printf %s "$PS1" | grep -o "133;A;" | wc -l')).toMatchObject({ output: '1' });
    // Our wrapped PS1 carries the nonce: a child process must not get it (activate exports PS1).
    expect(await run(session, 'env | grep -c "^PS1=" || true')).toMatchObject({ output: '0' });
    expect(await run(session, 'deactivate')).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });
});

describe('bash falls back to its prompt', () => {
  it('after exec bash: the prompt fallback ends the command, re-arms, and the next command is marked', async () => {
    const { session } = await open('bash');
    const reset = await run(session, 'exec bash');
    // The new bash's $? is not the command's: no exit code.
    expect(reset).toMatchObject({ status: 'completed', exit_code: null, output: '', detection: 'prompt_fallback' });
    expect(session.state).toBe('idle');
    await expectIntegrated(session);
  });

  it('after source of an rc file that replaces both PS1 and the PROMPT_COMMAND array: fallback with the exit code', async () => {
    // (A string assigned to PROMPT_COMMAND replaces only its first element, so ours is kept.)
    const { session } = await open('bash', { '.bashrc': "PS1='plain$ '\nPROMPT_COMMAND=(x=1)\n" });
    const reset = await run(session, 'echo sourcing; source ~/.bashrc');
    expect(reset).toMatchObject({ status: 'completed', exit_code: 0, output: 'sourcing', detection: 'prompt_fallback' });
    await expectIntegrated(session);
  });
});

describe('zsh and fish fall back to their prompt', () => {
  it.each(['zsh', 'fish'] as const)('after exec %s', async (shell) => {
    const { session } = await open(shell);
    const reset = await run(session, `exec ${shell}`);
    expect(reset).toMatchObject({ status: 'completed', exit_code: null, detection: 'prompt_fallback' });
    await expectIntegrated(session);
  });
});

describe('the shell itself reading the terminal is no prompt', () => {
  it('a builtin read still awaits input (canonical mode), and its answer ends it with its marks', async () => {
    const { session } = await open('bash');
    const asked = await run(session, 'read -r x; echo "got:$x"');
    expect(asked.status).toBe('awaiting_input');
    const answered = await session.send({ clientId: 'test', text: 'abc', keys: ['enter'], wait: { exit: true } });
    expect(answered.output).toContain('got:abc');
    await expectIntegrated(session);
  });

  it('a program replacing the shell (exec python3) is not taken for it, though its REPL reads as a line editor does', async () => {
    const { session } = await open('bash');
    // The fallback's check runs before each input probe: had it taken the REPL for the shell, the
    // command would end `prompt_fallback`; the probe after it says the REPL waits for a line.
    const answer = await run(session, 'exec python3 -q', 60_000);
    expect(answer).toMatchObject({ status: 'awaiting_input', input_kind: 'line' });
    expect(answer.detection).not.toBe('prompt_fallback');
    expect(session.state).toBe('awaiting_input');
    await session.close();
  });
});

describe('zsh keeps its marks', () => {
  it('after precmd_functions=()', async () => {
    const { session } = await open('zsh');
    expect(await run(session, 'precmd_functions=(); (exit 2)')).toMatchObject({ status: 'completed', exit_code: 2, detection: 'shell_integration' });
    await expectIntegrated(session);
  });

  it('after preexec_functions=()', async () => {
    const { session } = await open('zsh');
    expect(await run(session, 'preexec_functions=()')).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });

  it('after PS1=', async () => {
    const { session } = await open('zsh');
    expect(await run(session, "PS1='custom%# '")).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });
});

describe('fish keeps its marks', () => {
  it('after functions -e fish_prompt', async () => {
    const { session } = await open('fish');
    expect(await run(session, 'functions -e fish_prompt')).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
  });

  it('after fish_prompt is redefined', async () => {
    const { session } = await open('fish');
    expect(await run(session, "function fish_prompt; printf 'mine> '; end")).toMatchObject({ status: 'completed', exit_code: 0 });
    await expectIntegrated(session);
    const screen = await session.read({ clientId: 'test', view: 'screen', format: 'plain' });
    expect(screen.content).toMatch(/^mine> /m);
  });

  it("after the integration's event handlers are erased", async () => {
    const { session } = await open('fish');
    expect(await run(session, 'functions -e __sb_preexec __sb_postexec; false')).toMatchObject({ status: 'completed', exit_code: 1 });
    await expectIntegrated(session);
  });
});
