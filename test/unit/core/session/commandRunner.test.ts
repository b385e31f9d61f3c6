/**
 * `execute`'s runner (src/core/session/commandRunner.ts) on a real headless emulator that no
 * shell writes to, on fake timers: what it types for each kind of shell, SESSION_BUSY in the
 * moment between typing a command and its C mark, waiting for the prompt's B mark (and, for a
 * prompt that lost its marks, a warning once and no more waiting: docs/design.md §2.5), and a
 * cancel that types Ctrl-C. Commands that finish — marks from a real shell — are the integration
 * tests' part (terminalSession.test.ts, shellIntegration.test.ts).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Emulator, loadEmulator } from '../../../../src/core/emulation/emulator.js';
import { EventEmitter } from '../../../../src/core/event.js';
import { CommandRunner } from '../../../../src/core/session/commandRunner.js';
import { wrapCommand } from '../../../../src/core/shell/shellIntegration.js';
import type { ExecuteResult, InputKind, ShellKind } from '../../../../src/core/types.js';

const NONCE = 'n0nce';

beforeAll(async () => {
  await loadEmulator();
});
beforeEach(() => {
  vi.useFakeTimers();
});
const disposables: { dispose(): void }[] = [];
afterEach(() => {
  for (const item of disposables.splice(0)) item.dispose();
  vi.useRealTimers();
});

/** What the input watch answers the runner: the job's wait now, and what a probe on demand finds. */
interface InputAnswers {
  awaiting: { secret: boolean; kind: InputKind } | null;
  probed: { secret: boolean; kind: InputKind } | null;
  probes: number;
}

function setup(shellKind: ShellKind | 'unknown' | null = 'unknown'): {
  runner: CommandRunner;
  emulator: Emulator;
  typed: string[];
  warnings: string[];
  input: InputAnswers;
} {
  const emulator = new Emulator({ cols: 80, rows: 10, scrollback: 100, nonce: NONCE, headLines: 50 });
  const exit = new EventEmitter<void>();
  const awaitInput = new EventEmitter<void>();
  disposables.push(emulator, exit, awaitInput);
  const typed: string[] = [];
  const warnings: string[] = [];
  const input: InputAnswers = { awaiting: null, probed: null, probes: 0 };
  const runner = new CommandRunner({
    id: 'k3f9q2',
    shellKind,
    notShell: shellKind === null ? 'started with -c' : null,
    program: shellKind === null ? 'python3' : 'bash',
    detection: 'shell_integration',
    nonce: NONCE,
    emulator,
    write: (data) => typed.push(data),
    assertWritable: () => {},
    watchExit: () => ({ promise: new Promise<void>((resolve) => exit.event(() => resolve())), dispose: () => {} }),
    onDidAwaitInput: awaitInput.event,
    awaiting: () => input.awaiting,
    probeInput: async () => {
      input.probes++;
      return (input.awaiting ??= input.probed);
    },
    endingExitCode: () => null,
    onDidLaunch: () => {},
    onWarning: (message) => warnings.push(message),
  });
  return { runner, emulator, typed, warnings, input };
}

/** Runs `command` with a short timeout; no shell answers, so it ends `running` once the fake clock passes it. */
async function runUntilTimeout(runner: CommandRunner, command: string, signal?: AbortSignal): Promise<ExecuteResult> {
  const result = runner.run({ command, timeoutMs: 100, maxLines: 50, signal });
  await vi.advanceTimersByTimeAsync(5_000);
  return result;
}

describe('CommandRunner: what it types', () => {
  it('types a line into bash, zsh and fish as it is, followed by Enter', async () => {
    for (const kind of ['bash', 'zsh', 'fish'] as const) {
      const { runner, typed } = setup(kind);
      await runUntilTimeout(runner, 'echo hi');
      expect(typed).toEqual(['echo hi\r']);
    }
  });

  it('types a multi-line command as one command line: a bracketed paste when the line editor takes one, else eval of it quoted', async () => {
    const command = "echo a\necho 'b'";
    const plain = setup('bash');
    await runUntilTimeout(plain.runner, command);
    expect(plain.typed).toEqual([`eval 'echo a\necho '\\''b'\\'''\r`]);

    const pasting = setup('bash');
    pasting.emulator.write('\x1b[?2004h', 0, 8); // the line editor turned bracketed paste on
    await pasting.emulator.whenParsed();
    await runUntilTimeout(pasting.runner, command);
    expect(pasting.typed).toEqual([`\x1b[200~${command}\x1b[201~\r`]);
  });

  it('wraps the command for sh and for shells without integration, with the session nonce', async () => {
    for (const kind of ['sh', 'unknown'] as const) {
      const { runner, typed } = setup(kind);
      await runUntilTimeout(runner, 'ls -l');
      expect(typed).toEqual([`${wrapCommand(kind, 'ls -l', NONCE)}\r`]);
    }
  });

  it('refuses a program that is not a shell, saying why and what to use instead', async () => {
    const { runner, typed } = setup(null);
    await expect(runner.run({ command: 'ls', timeoutMs: 100, maxLines: 50 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'Session k3f9q2 runs python3, started with -c; use send to type into it.',
    });
    expect(typed).toEqual([]);
  });
});

describe('CommandRunner: launching, prompts, cancelling', () => {
  it('is busy from typing a command until its C mark, and refuses another with SESSION_BUSY naming it', async () => {
    const { runner, typed } = setup();
    const first = await runUntilTimeout(runner, 'sleep 5');
    expect(first).toMatchObject({ status: 'running', exit_code: null, session: 'k3f9q2' });
    expect(runner.busy).toBe(true);
    expect(runner.launching?.command).toBe('sleep 5');
    await expect(runner.run({ command: 'echo next', timeoutMs: 100, maxLines: 50 })).rejects.toMatchObject({
      code: 'SESSION_BUSY',
      message: expect.stringContaining('is still running `sleep 5` (started 5s ago)'),
      details: { command: 'sleep 5', running_ms: 5_000 },
    });
    expect(typed).toHaveLength(1);
    runner.launched(); // the C mark (or the exit)
    expect(runner.busy).toBe(false);
    expect(runner.launching).toBeNull();
  });

  it('refuses at once while busy, without waiting for a prompt first', async () => {
    const { runner, warnings } = setup('bash');
    await runUntilTimeout(runner, 'sleep 5'); // no prompt mark came: warned once
    runner.promptShown(); // a prompt mark shows again (the command has not started yet)
    let refusal: unknown;
    void runner.run({ command: 'echo next', timeoutMs: 100, maxLines: 50 }).catch((error) => (refusal = error));
    await vi.advanceTimersByTimeAsync(0);
    expect(refusal).toMatchObject({ code: 'SESSION_BUSY' });
    expect(warnings).toHaveLength(1);
  });

  it("waits for the prompt's mark before typing; a prompt without one is warned about once, then not waited for", async () => {
    const { runner, typed, warnings } = setup('bash');
    const first = runner.run({ command: 'true', timeoutMs: 100, maxLines: 50 });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(typed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(typed).toEqual(['true\r']);
    await vi.advanceTimersByTimeAsync(100);
    await first;
    expect(warnings).toEqual(['session k3f9q2: no prompt mark within 2000 ms after a command; typing without waiting for the prompt from now on']);

    runner.launched();
    const second = runner.run({ command: 'false', timeoutMs: 100, maxLines: 50 });
    await vi.advanceTimersByTimeAsync(0);
    expect(typed).toEqual(['true\r', 'false\r']);
    await vi.advanceTimersByTimeAsync(100);
    await second;
    expect(warnings).toHaveLength(1);

    // A prompt with its mark shows again: commands wait for it again.
    runner.launched();
    runner.promptShown();
    void runner.run({ command: 'ls', timeoutMs: 100, maxLines: 50 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(typed).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5_000);
  });

  it("warns when a new shell's first prompt does not show in time, and then types without waiting for one", async () => {
    const { runner, typed, warnings } = setup('bash');
    const outcome = runner.firstPrompt(15_000);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await outcome).toBe('timeout');
    expect(warnings).toEqual(['session k3f9q2: bash showed no prompt within 15000 ms']);
    void runner.run({ command: 'true', timeoutMs: 100, maxLines: 50 });
    await vi.advanceTimersByTimeAsync(0);
    expect(typed).toEqual(['true\r']);
    await vi.advanceTimersByTimeAsync(5_000);
  });

  it('interrupts the command when the call is cancelled, waiting a bounded time for it to end', async () => {
    const { runner, typed } = setup();
    const controller = new AbortController();
    const running = runner.run({ command: 'sleep 60', timeoutMs: 60_000, maxLines: 50, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await vi.advanceTimersByTimeAsync(999);
    expect(typed).toEqual([`${wrapCommand('unknown', 'sleep 60', NONCE)}\r`, '\x03']);
    let settled = false;
    void running.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await running).toMatchObject({ status: 'running' });
  });
});

describe('CommandRunner: into a program waiting at its own prompt', () => {
  /** A command that started (its C mark) and runs on: what execute finds when it comes again. */
  async function started(kind: ShellKind = 'bash'): Promise<ReturnType<typeof setup>> {
    const harness = setup(kind);
    harness.emulator.write(`\x1b]133;A;nonce=${NONCE}\x07$ \x1b]133;B;nonce=${NONCE}\x07`, 0, 0);
    await runUntilTimeout(harness.runner, 'python3');
    harness.emulator.write(`\x1b]133;C;nonce=${NONCE}\x07>>> `, 0, 0);
    await vi.advanceTimersByTimeAsync(100);
    harness.runner.launched();
    expect(harness.emulator.tracker.runningCommand?.commandLine).toBe('python3');
    harness.typed.length = 0;
    return harness;
  }

  it('answers awaiting_input with its kind and not_run, typing nothing, when the running program waits for input', async () => {
    const { runner, typed, input } = await started();
    input.awaiting = { secret: false, kind: 'line' };
    const result = await runner.run({ command: 'echo hi', timeoutMs: 100, maxLines: 50 });
    expect(result).toMatchObject({ status: 'awaiting_input', input_kind: 'line', secret: false, not_run: true, exit_code: null, command_seq: 1 });
    expect(result.output).toContain('>>>');
    expect(typed).toEqual([]);
    expect(input.probes).toBe(0); // the watch already knew
  });

  it('asks the probe at once when the watch has not seen the wait yet (output not quiet long enough)', async () => {
    const { runner, typed, input } = await started();
    input.probed = { secret: false, kind: 'screen' };
    const result = await runner.run({ command: 'echo hi', timeoutMs: 100, maxLines: 50 });
    expect(result).toMatchObject({ status: 'awaiting_input', input_kind: 'screen', not_run: true });
    expect(input.probes).toBe(1);
    expect(typed).toEqual([]);
  });

  it('still refuses with SESSION_BUSY naming the command when it does not wait for input', async () => {
    const { runner, typed, input } = await started();
    await expect(runner.run({ command: 'echo hi', timeoutMs: 100, maxLines: 50 })).rejects.toMatchObject({
      code: 'SESSION_BUSY',
      message: expect.stringContaining('is still running `python3`'),
    });
    expect(input.probes).toBe(1);
    expect(typed).toEqual([]);
  });
});
