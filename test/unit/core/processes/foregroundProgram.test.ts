/**
 * Which shells read command lines from the terminal (src/core/processes/foregroundProgram.ts):
 * what `send` types into one is a command (docs/design.md §2.9); into a shell running a `-c`
 * string or a script file it is data for that script. The argv lists are data.
 */
import { describe, expect, it } from 'vitest';
import { readsCommandLines } from '../../../../src/core/processes/foregroundProgram.js';

describe('readsCommandLines', () => {
  it('an interactive shell, one with -s or no script, and one whose script is the terminal read command lines', () => {
    for (const argv of [
      ['bash'],
      ['-bash'],
      ['/usr/bin/bash', '--init-file', '/x/bash.sh', '-i'],
      ['bash', '--norc', '--noprofile'],
      ['dash', '-i'],
      ['zsh', '-f'],
      ['fish', '--init-command', 'source /x/fish.fish'],
      ['bash', '-s', 'a', 'b'],
      ['bash', '/dev/stdin'],
      ['sh', '/dev/fd/0'],
      ['sh', '/proc/self/fd/3'],
      ['bash', '-'],
      ['bash', '-o', 'vi'],
      ['busybox', 'sh'],
    ]) {
      expect(readsCommandLines(argv), argv.join(' ')).toBe(true);
    }
  });

  it('a shell running a -c string or a script file does not (its reads are the script’s data)', () => {
    for (const argv of [
      ['bash', '-c', 'read x'],
      ['bash', '-lc', 'make'],
      ['bash', '--command=read x'],
      ['sh', '/root/.pyenv/shims/python3'],
      ['bash', '-e', 'x.sh'],
      ['busybox', 'cat'],
    ]) {
      expect(readsCommandLines(argv), argv.join(' ')).toBe(false);
    }
  });
});
