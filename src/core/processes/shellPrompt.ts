import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { probeTerminalInput } from './inputProbe.js';
import { isAlive, readProcess } from './processTable.js';

const execFileAsync = promisify(execFile);

/**
 * Is a session's own shell back at its prompt? (docs/design.md §2.5, the prompt fallback.) Asked
 * only after output has been quiet while a command seemed to run, so its cost (a few /proc reads,
 * one `stty`) never lands on the byte path.
 *
 * At its prompt, the shell is the terminal's foreground group (no job in front), it waits on the
 * terminal, and its line editor (readline, zle, fish's reader) has turned canonical mode and echo
 * off. A builtin `read` in the shell keeps canonical mode, so it is not taken for the prompt;
 * builtins that read through the line editor itself (bash `read -e`, zsh `vared`, fish `read`)
 * look the same as the prompt.
 */
interface ShellPromptProbe {
  atPrompt: boolean;
  /**
   * The shell's command line is no longer the one it was started with: it ran `exec` (e.g.
   * `exec bash`), and the process now at the terminal has none of the integration.
   */
  replaced: boolean;
}

export async function probeShellPrompt(shellPid: number, ttyPath: string, startCommandLine: string | undefined): Promise<ShellPromptProbe> {
  const none = { atPrompt: false, replaced: false };
  const shell = await readProcess(shellPid);
  if (!shell || !isAlive(shell) || shell.tpgid !== shellPid) return none;
  // The shell leads the foreground group, so the group's probe is the shell's own.
  const input = await probeTerminalInput(shellPid, ttyPath);
  if (!input.reading || !input.keyByKey) return none;
  const now = await commandLine(shellPid);
  return { atPrompt: true, replaced: startCommandLine !== undefined && now !== undefined && now !== startCommandLine };
}

/**
 * The command line a process started as `file args…` shows (as `commandLine` reads it): node-pty
 * execs `file` with itself as argv[0]. Known from the launch, not read from the process after
 * it: that read could come late, after the shell already ran `exec`.
 */
export function launchedCommandLine(file: string, args: readonly string[]): string {
  const argv = [file, ...args];
  return process.platform === 'linux' ? argv.map((arg) => `${arg}\0`).join('') : argv.join(' ');
}

/** The process's command line (its arguments, NUL-joined on Linux), or undefined when it cannot be read. */
export async function commandLine(pid: number): Promise<string | undefined> {
  if (process.platform === 'linux') return fs.readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => undefined);
  try {
    const { stdout } = await execFileAsync('ps', ['-p', String(pid), '-o', 'args=']);
    return stdout.trim();
  } catch {
    return undefined;
  }
}
