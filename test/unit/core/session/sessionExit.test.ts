/**
 * How a session's program ended (src/core/session/sessionExit.ts): recorded once, told to waits
 * and listeners, and a shell killed by a signal never reads as a command that succeeded.
 */
import { describe, expect, it } from 'vitest';
import { SessionExit } from '../../../../src/core/session/sessionExit.js';

describe('SessionExit', () => {
  it('says nothing while the program runs', () => {
    const exit = new SessionExit();
    expect(exit.at).toBeNull();
    expect(exit.exitCode).toBeNull();
    expect(exit.commandExitCode).toBeNull();
    expect(exit.end).toBeNull();
  });

  it("gives the shell's own exit code to the command it ended with", async () => {
    const exit = new SessionExit();
    const heard: Array<number | null> = [];
    exit.onDidExit((code) => heard.push(code));
    exit.record(3, undefined);
    await exit.exited;
    expect(heard).toEqual([3]);
    expect(exit.exitCode).toBe(3);
    expect(exit.end).toEqual({ at: exit.at, commandExitCode: 3 });
  });

  it('reports 128 + the signal, as $? does, and no command exit code when a signal ended the shell (node-pty says 0 then)', () => {
    const exit = new SessionExit();
    exit.record(0, 9);
    expect(exit.exitCode).toBe(137);
    expect(exit.commandExitCode).toBeNull();
    expect(exit.end?.commandExitCode).toBeNull();
  });

  it('lets a wait started before the exit resolve with it, and one after it at once', async () => {
    const exit = new SessionExit();
    const before = exit.watch();
    let settled = false;
    void before.promise.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    exit.record(0, undefined);
    await before.promise;
    expect(settled).toBe(true);
    await exit.watch().promise;
  });
});
