import type { Emulator, OutputPosition } from '../emulation/emulator.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import type { TrackedCommand } from '../shell/commandTracker.js';
import { RECENT_OUTPUT_BYTES, type RecentOutput } from '../transcript/recentOutput.js';
import { replayCommandPage, replayHistory } from '../transcript/replay.js';
import { recordOutcome, type Transcript } from '../transcript/transcript.js';
import type { InputKind, ReadRequest, ReadResult, SessionState } from '../types.js';
import type { CommandRecords } from './commandRecords.js';
import { screenView } from './screenView.js';
import { waitFor, type WaitSources } from './waitFor.js';

/** Lines a `read` returns when no `limit` is given. */
const DEFAULT_READ_LIMIT = 200;

/** What every `send` and `read` result says of the session. */
export interface SessionStatus {
  state: SessionState;
  /** The program's exit code once the session exited, else null. */
  exit_code: number | null;
  /** Present while the job awaits input: whether the prompt has echo off. */
  secret?: boolean;
  /** Present while the job awaits input: what kind of input it wants. */
  input_kind?: InputKind;
}

/** The session's end, as a command that ended with it sees it. */
export interface SessionEnd {
  at: Date;
  /** The exit code of a command that ended the shell (`exit 3`); null when a signal ended it. */
  commandExitCode: number | null;
}

/** What the reader reads of the emulator: the screen, the history, positions, command output. */
type ReadableEmulator = Pick<
  Emulator,
  | 'tracker'
  | 'screenLines'
  | 'serializeScreen'
  | 'cursor'
  | 'historyLines'
  | 'historyTrimmed'
  | 'cols'
  | 'rows'
  | 'position'
  | 'linesSince'
  | 'commandOutput'
  | 'styledScreen'
  | 'styledHistory'
  | 'styledSince'
  | 'styledCommandOutput'
>;

interface SessionReaderOptions {
  /** The session's id, named in errors and in the notes that say how to read the rest. */
  id: string;
  /** The marks' nonce: a command's output is replayed from the transcript with it. */
  nonce: string;
  emulator: ReadableEmulator;
  /** output.log, for what the emulator no longer holds; null without a state dir. */
  transcript: Pick<Transcript, 'flush' | 'outputFile' | 'cut' | 'size'> | null;
  /** Raw output for view `new` in `ansi` format. */
  recent: Pick<RecentOutput, 'since' | 'end'>;
  records: Pick<CommandRecords, 'get'>;
  status: () => SessionStatus;
  /** null until the session ended. */
  ended: () => SessionEnd | null;
  /** What a `read` with `wait` waits on, from `since` (the screen included). */
  waitSources: (since: OutputPosition) => WaitSources;
}

/** Per-client place in the output for `read` view `new`. */
interface ReaderCursor {
  position: OutputPosition | null;
  /** Bytes of output before the next `ansi` read. */
  byteOffset: number;
}

/**
 * `read` (docs/design.md §3.2): the views `screen`, `history`, `new` (from each client's own
 * cursor) and `command`, after an optional wait (§3.3). Never queued behind writers, never
 * refused for control: it only reads.
 */
export class SessionReader {
  private readonly readers = new Map<string, ReaderCursor>();
  /** Reads in progress (see read()). */
  private readonly reads = new Set<Promise<unknown>>();

  constructor(private readonly options: SessionReaderOptions) {}

  read(request: ReadRequest): Promise<ReadResult> {
    // Tracked: a read whose wait ends at the exit reads the emulator after it, so dispose lets it finish.
    const reading = this.readNow(request);
    const tracked = reading.catch(() => undefined).finally(() => this.reads.delete(tracked));
    this.reads.add(tracked);
    return reading;
  }

  /** Settles once every read in progress has (each one's failure is its caller's). */
  whenReadsDone(): Promise<unknown> {
    return Promise.allSettled([...this.reads]);
  }

  private async readNow(request: ReadRequest): Promise<ReadResult> {
    if (request.wait) {
      const since = this.options.emulator.position();
      try {
        const state = this.options.status().state;
        const waited = await waitFor(request.wait, this.options.waitSources(since), {
          nothingRunning: state === 'idle' || state === 'exited',
          signal: request.signal,
        });
        return { ...(await this.readView(request)), waited };
      } finally {
        since.marker?.dispose();
      }
    }
    return { ...(await this.readView(request)), waited: null };
  }

  private async readView(request: ReadRequest): Promise<Omit<ReadResult, 'waited'>> {
    const base = this.options.status();
    const emulator = this.options.emulator;
    const limit = request.limit ?? DEFAULT_READ_LIMIT;
    switch (request.view) {
      case 'screen':
        return { ...base, ...screenView(emulator, request.format) };
      case 'history':
        return { ...base, ...(await this.readHistory(request.offset ?? 0, limit, request.format === 'styled')) };
      case 'new':
        return { ...base, ...(await this.readNew(request.clientId, request.format, limit)) };
      case 'command':
        return { ...base, ...(await this.readCommand(request.seq, request.offset ?? 0, limit, request.format === 'styled')) };
    }
  }

  /**
   * `read` view `history`: from the in-memory scrollback while it holds the page; once the page
   * reaches past its oldest line and that line is not the session's first (agent sessions keep
   * a short scrollback, setting agentScrollback), from the transcript on disk.
   */
  private async readHistory(offset: number, limit: number, styled: boolean): Promise<Pick<ReadResult, 'content' | 'lines' | 'total_lines' | 'truncated'>> {
    const emulator = this.options.emulator;
    const all = emulator.historyLines();
    const trimmed = emulator.historyTrimmed;
    const transcript = this.options.transcript;
    if (offset + limit >= all.length && trimmed && transcript && !transcript.cut) {
      if (styled)
        throw notHeldStyled(
          `this page reaches past the ${all.length} lines of history session ${this.options.id} holds in memory`,
          `offset + limit under ${all.length}`,
        );
      await transcript.flush();
      const replay = await replayHistory({ file: transcript.outputFile, cols: emulator.cols, rows: emulator.rows, offset, limit });
      const older = replay.total - offset - replay.lines.length > 0 || !replay.fromStart;
      return { content: replay.lines.join('\n'), lines: replay.lines.length, total_lines: replay.total, truncated: older || offset > 0 };
    }
    const end = Math.max(0, all.length - offset);
    const first = Math.max(0, end - limit);
    const page = all.slice(first, end);
    const content = styled ? { rows: emulator.styledHistory(first, end) } : page.join('\n');
    // Lines older than the scrollback are on disk: the page is not the whole history.
    return { content, lines: page.length, total_lines: all.length, truncated: end - page.length > 0 || offset > 0 || trimmed };
  }

  /** `read` view `new`: what appeared since this client's last read of it (its first: everything held). */
  private async readNew(
    clientId: string,
    format: ReadRequest['format'],
    limit: number,
  ): Promise<Pick<ReadResult, 'content' | 'lines' | 'total_lines' | 'truncated'>> {
    const { emulator, recent } = this.options;
    const cursor = this.readers.get(clientId) ?? { position: null, byteOffset: 0 };
    // The next read starts here, also one that comes in while this one reads output.log.
    this.readers.set(clientId, { position: emulator.position(), byteOffset: recent.end });
    if (format === 'ansi') {
      cursor.position?.marker?.dispose();
      const { text, skipped, notKept } = await recent.since(cursor.byteOffset);
      const lines = text.split('\n');
      const note =
        skipped === 0
          ? ''
          : notKept
            ? `[… ${skipped} earlier bytes not kept (${notKept}); read view=history or command]\n`
            : `[… ${skipped} earlier bytes left out: a read of new output in ansi returns its last ${RECENT_OUTPUT_BYTES} bytes; read view=history or command]\n`;
      // Every character since the last read up to that bound, whatever `limit`.
      return { content: note + text, lines: lines.length, total_lines: lines.length, truncated: skipped > 0 };
    }
    if (format === 'styled') {
      const since = cursor.position ? emulator.styledSince(cursor.position) : { rows: emulator.styledHistory(0, Number.MAX_SAFE_INTEGER), complete: true };
      cursor.position?.marker?.dispose();
      const rows = since.rows.slice(-limit);
      return { content: { rows }, lines: rows.length, total_lines: since.rows.length, truncated: !since.complete || since.rows.length > rows.length };
    }
    const since = cursor.position ? emulator.linesSince(cursor.position) : { lines: emulator.historyLines(), complete: true };
    cursor.position?.marker?.dispose();
    const lines = since.lines;
    const shown = Math.min(lines.length, limit);
    let content = lines.slice(-limit).join('\n');
    // Loss is never silent. The start of what this reader missed left the scrollback.
    if (!since.complete) content = `[… earlier output since your last read is no longer held here; a command's whole output: read view=command]\n${content}`;
    return { content, lines: shown, total_lines: lines.length, truncated: !since.complete || lines.length > shown };
  }

  /**
   * `read` view `command`: a page of the output of command `seq`, with that command's exit code
   * and duration once it finished (docs/design.md §3.2), so a `wait.exit` read needs no second call.
   */
  private async readCommand(
    seq: number | undefined,
    offset: number,
    limit: number,
    styled: boolean,
  ): Promise<Pick<ReadResult, 'content' | 'lines' | 'total_lines' | 'truncated' | 'seq' | 'exit_code' | 'duration_ms'>> {
    const { emulator, transcript, id } = this.options;
    const tracker = emulator.tracker;
    const live = tracker.runningCommand ?? tracker.lastCommand;
    const wanted = seq ?? live?.seq;
    if (wanted === undefined || live === null) {
      throw new SwitchboardError(ErrorCode.InvalidArgument, `seq: session ${id} has run no command yet; run one with execute first.`);
    }
    const record = this.options.records.get(wanted);
    const outcome = wanted === live.seq ? this.trackedOutcome(live) : record ? recordOutcome(record) : { exit_code: null };
    if (wanted === live.seq) {
      const output = emulator.commandOutput(live);
      const rows = styled ? emulator.styledCommandOutput(live) : null;
      if (rows) {
        const page = rows.slice(offset, offset + limit);
        return {
          content: { rows: page },
          lines: page.length,
          total_lines: rows.length,
          truncated: offset + page.length < rows.length,
          seq: wanted,
          ...outcome,
        };
      }
      if (!styled && (output.complete || offset + limit <= output.head.length)) {
        const page = output.head.slice(offset, offset + limit);
        return {
          content: page.join('\n'),
          lines: page.length,
          total_lines: output.total,
          truncated: offset + page.length < output.total,
          seq: wanted,
          ...outcome,
        };
      }
    }
    if (styled) throw notHeldStyled(`the output of command ${wanted} is not on screen or in the scrollback`, 'view=history or screen');
    const file = transcript?.outputFile;
    // A running command whose output outgrew the scrollback and the head lines: what it printed so far is on disk.
    const range = record
      ? { start: record.output_start_byte, end: record.output_end_byte }
      : wanted === live.seq && live.end === null
        ? { start: live.startByte, end: transcript?.size ?? null }
        : undefined;
    if (!range || range.end === null || !file) {
      const latest = live.seq;
      throw new SwitchboardError(ErrorCode.InvalidArgument, `seq: no finished command ${wanted} in session ${id}; commands are numbered 1–${latest}.`);
    }
    await transcript?.flush();
    const page = await replayCommandPage({
      file,
      startByte: range.start,
      endByte: range.end,
      nonce: this.options.nonce,
      cols: emulator.cols,
      offset,
      limit,
      seq: wanted,
      sessionId: id,
      cut: transcript?.cut ?? null,
    });
    return { ...page, seq: wanted, ...outcome };
  }

  /**
   * The exit code and duration of the running or last command: null while it runs. A command
   * that ended the shell (`exit 3`) has no D mark; it finished with the shell, with the shell's
   * exit code, as execute reports it.
   */
  private trackedOutcome(command: TrackedCommand): Pick<ReadResult, 'exit_code' | 'duration_ms'> {
    if (command.endedAt !== null) return { exit_code: command.exitCode, duration_ms: command.endedAt - command.startedAt };
    const ended = this.options.ended();
    if (ended) return { exit_code: ended.commandExitCode, duration_ms: Math.max(0, ended.at.getTime() - command.startedAt) };
    return { exit_code: null };
  }
}

/**
 * Styles are read from the emulator's cells; a page replayed from output.log is rendered as
 * text only (the replays keep text, not cells: docs/design.md §3.2).
 */
export function notHeldStyled(why: string, instead: string): SwitchboardError {
  return new SwitchboardError(
    ErrorCode.InvalidArgument,
    `format: "styled" reads the cells the hub holds in memory, and ${why}: those lines are read back from the transcript as text only. Read them with format "plain" or "ansi", or use styled with ${instead}.`,
  );
}
