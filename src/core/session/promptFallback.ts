import type { Emulator } from '../emulation/emulator.js';
import { nextEvent } from '../event.js';
import { commandLine, launchedCommandLine, probeShellPrompt } from '../processes/shellPrompt.js';
import { detectShellKind, rearmCommand } from '../shell/shellIntegration.js';
import type { ShellKind } from '../types.js';
import { raceOutcome, type ExitWatch } from './raceOutcome.js';

/** How long the re-arm line may take to answer with its R mark (a slow rc-free source). */
const REARM_WAIT_MS = 2_000;

interface PromptFallbackOptions {
  shellKind: ShellKind | 'unknown' | null;
  /** The shell's pid (in a sandbox: the shell found inside it, known once its first prompt is up). */
  pid: () => number;
  /** What the shell was started as (a different command line later means it ran `exec`). */
  launched: { file: string; args: readonly string[] };
  ttyPath: string | undefined;
  nonce: string;
  emulator: Pick<Emulator, 'tracker' | 'whenParsed' | 'position'>;
  /** Transcript bytes received so far. */
  byteCount: () => number;
  /** Output has been quiet long enough to probe (setting awaitingInputQuietMs). */
  quiet: () => boolean;
  /** An agent may type now (the session is live and not taken over by the person). */
  mayType: () => boolean;
  write: (data: string) => void;
  watchExit: () => ExitWatch;
}

/**
 * The prompt fallback (docs/design.md §2.5): a command whose D mark never comes, while the
 * session's own shell is back at its prompt (its marks were lost: `exec bash`, an rc file that
 * replaced both PS1 and PROMPT_COMMAND). Ends the command with what the screen shows since it
 * was typed, re-arms the integration by typing its re-arm line, and takes the exit code from
 * the R mark that line prints (null when the shell was replaced: its `$?` is not the command's).
 */
export class PromptFallback {
  private checking = false;
  /** The shell's command line as started: a different one later means it ran `exec`. */
  private readonly startCommandLine: string;

  constructor(private readonly options: PromptFallbackOptions) {
    this.startCommandLine = launchedCommandLine(options.launched.file, options.launched.args);
  }

  /**
   * Asked while a command runs and output is quiet: if the shell is at its prompt, ends the
   * command (true). false: something else runs, and the input probe decides as usual.
   */
  async check(): Promise<boolean> {
    const { emulator, ttyPath } = this.options;
    const pid = this.options.pid();
    const tracker = emulator.tracker;
    if (this.checking || !ttyPath || !tracker.runningCommand || !hasHooks(this.options.shellKind)) return false;
    this.checking = true;
    try {
      const probe = await probeShellPrompt(pid, ttyPath, this.startCommandLine);
      if (!probe.atPrompt) return false;
      // The shell now in front: after `exec zsh` in bash, zsh (re-armed as zsh); after
      // `exec python3`, no shell at all (its REPL awaits input, as any program's would).
      const kind = probe.replaced ? detectShellKind((await commandLine(pid))?.split('\0')[0] ?? '') : this.options.shellKind;
      if (!hasHooks(kind)) return false;
      // fish's `read` waits in fish's own reader, exactly as its prompt does; and fish's
      // integration re-installs itself (fish.fish). So only a replaced fish falls back.
      if (kind === 'fish' && !probe.replaced) return false;
      await emulator.whenParsed();
      if (!this.options.quiet() || !tracker.runningCommand) return false;
      const position = emulator.position();
      const end = { marker: position.marker, col: 0 };
      const endByte = this.options.byteCount();
      const exitCode = await this.rearm(kind);
      tracker.finishByFallback(probe.replaced ? null : exitCode, end, endByte);
      return true;
    } finally {
      this.checking = false;
    }
  }

  /** Types the re-arm line; the exit code its R mark reports (null: none in time, or not typed). */
  private async rearm(kind: ShellKind): Promise<number | null> {
    const line = rearmCommand(kind, this.options.nonce);
    if (!line || !this.options.mayType()) return null;
    const rearmed = nextEvent(this.options.emulator.tracker.onDidRearm);
    try {
      this.options.write(`${line}\r`);
      const outcome = await raceOutcome(rearmed.promise, this.options.watchExit(), REARM_WAIT_MS);
      return outcome === 'finished' ? await rearmed.promise : null;
    } finally {
      rearmed.dispose();
    }
  }
}

function hasHooks(kind: ShellKind | 'unknown' | null): kind is 'bash' | 'zsh' | 'fish' {
  return kind === 'bash' || kind === 'zsh' || kind === 'fish';
}
