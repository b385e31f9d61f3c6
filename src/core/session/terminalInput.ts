import type { HostedPty } from '../pty/spawnPty.js';

/**
 * What a session types into its PTY, in order: keys, pastes, commands, Ctrl-C, and resizes,
 * through node-pty — until the terminal is let go of or its master closed (its fd number may
 * then be reused by any file): nothing is typed after that.
 */
export class TerminalInput {
  private typing = true;

  constructor(private readonly pty: Pick<HostedPty, 'write' | 'queuedInput' | 'resize'>) {}

  /** A string is typed as UTF-8; bytes as they are (mouse reports, mouseInput.ts). */
  write(data: string | Uint8Array): void {
    if (this.typing) this.pty.write(data);
  }

  /** Typed bytes are still on their way: the terminal has not taken them all (a long paste). */
  get inFlight(): boolean {
    return this.typing && this.pty.queuedInput() > 0;
  }

  resize(cols: number, rows: number): void {
    if (this.typing) this.pty.resize(cols, rows);
  }

  /** Nothing more reaches the terminal. */
  dispose(): void {
    this.typing = false;
  }
}
