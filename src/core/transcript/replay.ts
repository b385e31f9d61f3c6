import * as fs from 'node:fs';
import { Emulator } from '../emulation/emulator.js';
import type { TrackedCommand } from '../shell/commandTracker.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import type { TranscriptCut } from './transcript.js';

interface ReplayRequest {
  /** The session's output.log. */
  file: string;
  /** The command's transcript range (CommandRecord output_start_byte / output_end_byte). */
  startByte: number;
  endByte: number;
  /** The session's nonce: the replay trusts exactly the marks the live tracker trusted. */
  nonce: string;
  cols: number;
  /** Lines of the output to return: [offset, offset + limit). */
  offset: number;
  limit: number;
}

interface ReplayResult {
  lines: string[];
  /** Every line of the command's output. */
  total: number;
  /** False when the range held no complete command (a truncated transcript). */
  found: boolean;
}

/**
 * A page of a past command's output for `read` view `command`, never replayed past where
 * output.log stops: a command partly past the cut gets its lines with a leading note, one
 * wholly past it an INVALID_ARGUMENT that says so.
 */
export async function replayCommandPage(
  request: ReplayRequest & { seq: number; sessionId: string; cut: TranscriptCut | null },
): Promise<{ content: string; lines: number; total_lines: number; truncated: boolean }> {
  const { cut } = request;
  if (cut && request.startByte >= cut.at) {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `seq: the output of command ${request.seq} is not on disk: session ${request.sessionId}'s output.log stops at byte ${cut.at} because ${cut.reason}. Its last lines may still be on screen: read view=screen or history.`,
    );
  }
  const endByte = cut && request.endByte > cut.at ? cut.at : request.endByte;
  const replay = await replayCommandOutput({ ...request, endByte });
  const note = endByte < request.endByte ? `[… output.log stops inside this command's output (${cut!.reason}); later lines are not on disk]\n` : '';
  return {
    content: note + replay.lines.join('\n'),
    lines: replay.lines.length,
    total_lines: replay.total,
    truncated: note !== '' || request.offset + replay.lines.length < replay.total,
  };
}

/**
 * Renders a past command's output from the transcript: its bytes go through a scratch
 * emulator with the same tracker, which keeps just the requested lines as they complete.
 * Memory stays bounded by `limit`, whatever the output's size; time is one parse of it.
 */
async function replayCommandOutput(request: ReplayRequest): Promise<ReplayResult> {
  const emulator = await Emulator.create({
    cols: request.cols,
    rows: 24,
    scrollback: 200,
    nonce: request.nonce,
    headLines: request.limit,
    headFrom: request.offset,
    compactScrollback: false,
  });
  const seen: { started: TrackedCommand | null; finished: TrackedCommand | null } = { started: null, finished: null };
  emulator.tracker.onDidStartCommand((command) => (seen.started ??= command));
  emulator.tracker.onDidFinishCommand((command) => (seen.finished ??= command));
  try {
    let offset = request.startByte;
    const stream = fs.createReadStream(request.file, {
      start: request.startByte,
      end: Math.max(request.startByte, request.endByte - 1),
      highWaterMark: 256 * 1024,
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      emulator.write(chunk, offset, offset + chunk.length);
      offset += chunk.length;
      await emulator.whenParsed(); // bounded backlog: one chunk at a time
      if (seen.finished) break;
    }
    emulator.end(offset);
    await emulator.whenParsed();
    const command = seen.finished ?? seen.started;
    if (!command) return { lines: [], total: 0, found: false };
    const partial = command.endRowText ? 1 : 0;
    const total = command.lineFeeds + (command.end ? partial : 0);
    const lines = [...command.headLines];
    // The last line may end without a newline: it is on screen, not in the line-feed capture.
    if (command.endRowText && lines.length < request.limit && request.offset + lines.length === total - 1) lines.push(command.endRowText);
    return { lines, total, found: true };
  } finally {
    emulator.dispose();
  }
}

interface HistoryReplayRequest {
  /** The session's output.log. */
  file: string;
  cols: number;
  rows: number;
  /** Lines back from the end, then how many (as `read` view `history`). */
  offset: number;
  limit: number;
}

interface HistoryReplayResult {
  /** The requested page, oldest first. */
  lines: string[];
  /** Lines of history in the replayed part of the transcript. */
  total: number;
  /** False when the replay began after the transcript's first byte (HISTORY_REPLAY_MAX_BYTES): older lines are not counted. */
  fromStart: boolean;
}

/** `read` view `history` from disk replays at most this much of the transcript's end. */
const HISTORY_REPLAY_MAX_BYTES = 64 * 1024 * 1024;
/** …and keeps at most this many lines back from the end (as text, not cells). */
const HISTORY_REPLAY_MAX_LINES = 100_000;
/**
 * Slices fed between two `dropScrollback` calls: a slice scrolls at most one row per byte, so
 * the scratch buffer's scrollback (more than this) never fills and no row goes unseen.
 */
const HISTORY_SLICE_BYTES = 16 * 1024;

/**
 * The history of a session (every line of its normal buffer, as `read` view `history` counts
 * them) from its transcript: for sessions whose in-memory scrollback no longer holds the lines
 * asked for (agent sessions keep a short one), and for closed sessions. The bytes go through a
 * scratch emulator that reports each row entering its scrollback (rows there never change
 * again) and drops them between slices, so memory holds the page's lines as text, not a
 * scrollback of cells.
 */
export async function replayHistory(request: HistoryReplayRequest): Promise<HistoryReplayResult> {
  const size = fs.existsSync(request.file) ? fs.statSync(request.file).size : 0;
  const startByte = Math.max(0, size - HISTORY_REPLAY_MAX_BYTES);
  const keep = Math.min(request.offset + request.limit, HISTORY_REPLAY_MAX_LINES);
  const kept: string[] = [];
  let total = 0;
  // Replayed from the middle, the first line is most likely the end of a longer one: dropped.
  let skipFirst = startByte > 0;
  let line: { done: string; last: string } | null = null;
  const finish = (): void => {
    if (!line) return;
    const text = (line.done + line.last).trimEnd();
    line = null;
    if (skipFirst) return void (skipFirst = false);
    total++;
    kept.push(text);
    if (kept.length >= keep * 2 + 1024) kept.splice(0, kept.length - keep);
  };
  const row = (text: string, wrapped: boolean): void => {
    if (wrapped && line) {
      line.done += line.last; // a row that wraps on keeps its trailing blanks
      line.last = text;
      return;
    }
    finish();
    line = { done: '', last: text };
  };
  const emulator = await Emulator.create({
    cols: request.cols,
    rows: request.rows,
    scrollback: HISTORY_SLICE_BYTES * 2,
    nonce: '',
    headLines: 0,
    fastForward: false,
    compactScrollback: false,
  });
  try {
    const rows = emulator.onScrollbackRow(row);
    let offset = startByte;
    let carry = Buffer.alloc(0);
    const feed = async (bytes: Buffer): Promise<void> => {
      emulator.write(bytes, offset, offset + bytes.length);
      offset += bytes.length;
      await emulator.whenParsed();
      emulator.dropScrollback();
    };
    if (size > 0) {
      for await (const chunk of fs.createReadStream(request.file, { start: startByte, end: size - 1, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
        let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
        while (data.length >= HISTORY_SLICE_BYTES) {
          // Cut after a line feed where there is one, so the ED 3 between slices never lands inside an escape sequence.
          const newline = data.lastIndexOf(0x0a, HISTORY_SLICE_BYTES - 1);
          const cut = newline >= 0 ? newline + 1 : HISTORY_SLICE_BYTES;
          await feed(data.subarray(0, cut));
          data = data.subarray(cut);
        }
        carry = Buffer.from(data);
      }
      if (carry.length > 0) await feed(carry);
    }
    emulator.end(offset);
    await emulator.whenParsed();
    rows.dispose();
    for (const screenRow of emulator.screenRows()) row(screenRow.text, screenRow.wrapped);
    finish();
  } finally {
    emulator.dispose();
  }
  const end = Math.max(0, total - request.offset);
  const first = Math.max(0, end - request.limit, total - kept.length);
  const base = total - kept.length;
  return { lines: kept.slice(first - base, Math.max(first, end) - base), total, fromStart: startByte === 0 };
}
