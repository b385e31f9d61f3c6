/**
 * What the prompt fallback compares to tell a shell that ran `exec` (src/core/processes/shellPrompt.ts):
 * the command line a process started through node-pty shows is the one computed from its launch,
 * so the fallback never has to read it from the process (a read that, under load, came after the
 * shell had already exec'd, and took the new shell for the old one).
 */
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { commandLine, launchedCommandLine } from '../../src/core/processes/shellPrompt.js';
import { pollUntil } from './helpers/poll.js';
import { shellPath } from './helpers/shells.js';

const spawned: pty.IPty[] = [];
afterEach(() => {
  for (const proc of spawned.splice(0)) proc.kill('SIGKILL');
});

describe('launchedCommandLine', () => {
  it('is what the process shows once node-pty has exec’d it, and differs after the shell execs another', async () => {
    const file = shellPath('bash');
    const args = ['--norc', '-i'];
    const proc = pty.spawn(file, args, { cols: 80, rows: 24, env: { PATH: process.env.PATH ?? '', TERM: 'xterm' } });
    spawned.push(proc);
    const expected = launchedCommandLine(file, args);
    // Until node-pty's child has exec'd, it shows the forking process's command line.
    await pollUntil(async () => (await commandLine(proc.pid)) === expected, 'the shell’s command line', {
      detail: () => `expected ${JSON.stringify(expected)}`,
    });
    proc.write('exec sleep 30\r');
    await pollUntil(async () => (await commandLine(proc.pid))?.startsWith('sleep') === true, 'sleep in the shell’s place');
    expect(await commandLine(proc.pid)).not.toBe(expected);
  });
});
