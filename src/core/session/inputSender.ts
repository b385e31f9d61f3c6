import type { Emulator, OutputPosition } from '../emulation/emulator.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import type { SendRequest, SendResult, TerminalSize, WaitSpec } from '../types.js';
import { encodeKeys } from './keys.js';
import { mouseInput } from './mouseInput.js';
import type { SessionStatus } from './sessionReader.js';
import { waitFor, type WaitSources } from './waitFor.js';

/** `send` without `wait`: settle until output is quiet this long (bounded). */
const SEND_SETTLE: WaitSpec = { idle_ms: 300, timeout_ms: 3_000 };

interface InputSenderOptions {
  /** The session's id, named in errors. */
  id: string;
  /** Let agents type into an echo-off (password) prompt (setting allowAgentSecretInput). */
  allowSecretInput: boolean;
  emulator: Pick<Emulator, 'modes' | 'position' | 'linesSince' | 'screenLines' | 'mouseWhenParsed'>;
  /** Throws unless an agent may write now (the session is live and an agent controls it). */
  assertWritable: () => void;
  /** The job awaits input at an echo-off prompt. */
  atSecretPrompt: () => boolean;
  /** Types into the terminal (the job no longer counts as awaiting input); bytes as they are. */
  type: (data: string | Uint8Array) => void;
  /** Resizes the PTY and the emulator together, as `client` asked. */
  resize: (size: TerminalSize, client: string) => void;
  /** What a send's wait waits on, from `since` (only what appeared after typing). */
  waitSources: (since: OutputPosition) => WaitSources;
  status: () => SessionStatus;
}

/**
 * The bytes `send` types for its text and keys: the text as a bracketed paste where the program
 * asked for one (or `paste` says so), then the keys encoded for the program's cursor mode. The
 * person's policy judges exactly these (docs/design.md §2.9).
 */
export function inputBytes(request: Pick<SendRequest, 'text' | 'keys' | 'paste'>, modes: { bracketedPaste: boolean; applicationCursorKeys: boolean }): string {
  let data = '';
  if (request.text !== undefined && request.text !== '') {
    const paste = request.paste ?? (request.text.includes('\n') && modes.bracketedPaste);
    // An end-of-paste sequence inside the text would let it escape the paste.
    data += paste ? `\x1b[200~${request.text.replaceAll('\x1b[201~', '')}\x1b[201~` : request.text;
  }
  if (request.keys?.length) data += encodeKeys(request.keys, { applicationCursorKeys: modes.applicationCursorKeys });
  return data;
}

/**
 * `send` (docs/design.md §3.2): resizes the terminal if asked (§3.3), types text and/or keys into
 * whatever runs — as a bracketed paste where the program asked for one, keys encoded for its
 * cursor mode — then waits as asked (default: until output settles) and says what appeared
 * since. A mouse action (§3.3, mouseInput.ts) follows the text and keys in the same write.
 * Refused with SECRET_PROMPT at an echo-off prompt (§2.6).
 */
export class InputSender {
  constructor(private readonly options: InputSenderOptions) {}

  async send(request: SendRequest): Promise<SendResult> {
    const { emulator } = this.options;
    this.options.assertWritable();
    if (this.options.atSecretPrompt() && !this.options.allowSecretInput) {
      throw new SwitchboardError(
        ErrorCode.SecretPrompt,
        `Session ${this.options.id} is at a password prompt (echo is off); agents may not type secrets. Ask the person to type it in Switchboard, or kill the command.`,
      );
    }
    const data = inputBytes(request, emulator.modes);
    let typed: string | Uint8Array = data;
    if (request.mouse) {
      // The program may have turned reporting on in output not parsed yet.
      const mouse = mouseInput(this.options.id, request.mouse, await emulator.mouseWhenParsed());
      this.options.assertWritable();
      typed = Buffer.concat([Buffer.from(data, 'utf8'), mouse]);
    }
    const since = emulator.position();
    try {
      // First, so the keys reach a program that already knows its new size; its redraw is output.
      if (request.resize) this.options.resize(request.resize, request.clientName ?? 'unknown client');
      if (typed.length > 0) this.options.type(typed);
      const waited = await waitFor(request.wait ?? SEND_SETTLE, this.options.waitSources(since), {
        nothingRunning: false,
        signal: request.signal,
      });
      const { lines } = emulator.linesSince(since);
      const output = lines.join('\n');
      const screen = emulator.screenLines().join('\n').trimEnd();
      const { state, exit_code, ...awaiting } = this.options.status();
      return { output, screen, state, exit_code, waited, ...awaiting };
    } finally {
      since.marker?.dispose();
    }
  }
}
