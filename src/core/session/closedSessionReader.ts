import * as fs from 'node:fs';
import * as path from 'node:path';
import { Emulator } from '../emulation/emulator.js';
import { ErrorCode, SwitchboardError } from '../errors.js';
import { replayCommandPage, replayHistory } from '../transcript/replay.js';
import type { SessionStore } from '../transcript/sessionStore.js';
import { cutOf, OUTPUT_LOG, recordOutcome, type SessionMeta } from '../transcript/transcript.js';
import type { ReadRequest, ReadResult, StyledScreen } from '../types.js';
import { screenView } from './screenView.js';
import { notHeldStyled } from './sessionReader.js';

/** A closed session's screen is rebuilt from at most this much of its transcript's end (history: replay.ts). */
const REPLAY_TAIL_BYTES = 8 * 1024 * 1024;
const DEFAULT_LIMIT = 200;

/**
 * `read` of a session that has exited — in this hub or before a restart — from its transcript
 * (docs/design.md §2.7): `command` pages a command's output exactly (replayed
 * with the session's nonce), `screen` and `history` replay the transcript's end through a
 * scratch emulator, and `new` returns the history (per-client places do not outlive a hub).
 */
export async function readClosedSession(store: SessionStore, ref: string, request: ReadRequest, scrollback: number): Promise<ReadResult> {
  const meta = store.find(ref);
  if (!meta) {
    throw new SwitchboardError(ErrorCode.SessionNotFound, `No session "${ref}". Call list with include_closed to see the sessions, or open a new one.`);
  }
  const file = path.join(store.sessionDir(meta.id), OUTPUT_LOG);
  const base = { state: 'exited' as const, exit_code: meta.exit_code, waited: request.wait ? ('exit' as const) : null };
  const limit = request.limit ?? DEFAULT_LIMIT;
  if (request.view === 'command') {
    if (request.format === 'styled')
      throw notHeldStyled(`session ${meta.id} has exited, so a command's output is replayed from its transcript`, 'view=screen or history');
    const commands = store.commands(meta.id);
    const record = request.seq === undefined ? commands.at(-1) : commands.find((c) => c.seq === request.seq);
    if (!record || record.output_end_byte === null || !meta.nonce) {
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `seq: session ${meta.id} has no recorded command ${request.seq ?? ''}; its commands are ${commands.map((c) => c.seq).join(', ') || 'none'}.`,
      );
    }
    const offset = request.offset ?? 0;
    const page = await replayCommandPage({
      file,
      startByte: record.output_start_byte,
      endByte: record.output_end_byte,
      nonce: meta.nonce,
      cols: meta.cols,
      offset,
      limit,
      seq: record.seq,
      sessionId: meta.id,
      cut: cutOf(meta),
    });
    // That command's exit code and duration (docs/design.md §3.2), not the session's exit code.
    return { ...base, ...page, seq: record.seq, ...recordOutcome(record) };
  }
  if (request.view === 'screen') {
    const emulator = await replayTail(file, meta, scrollback);
    try {
      return { ...base, ...screenView(emulator, request.format) };
    } finally {
      emulator.dispose();
    }
  }
  // history (and `new`, which has no per-client place after the session ended): every line, from disk.
  const offset = request.view === 'history' ? (request.offset ?? 0) : 0;
  if (request.format === 'styled') {
    // Styles need cells: the scrollback of a replay of the transcript's end, as the screen.
    const emulator = await replayTail(file, meta, scrollback);
    try {
      const all = emulator.historyLines().length;
      const end = Math.max(0, all - offset);
      const first = Math.max(0, end - limit);
      const rows = emulator.styledHistory(first, end);
      const older = first > 0 || emulator.historyTrimmed || replayedFrom(file) > 0;
      return { ...base, content: { rows }, lines: rows.length, total_lines: all, truncated: older || offset > 0 };
    } finally {
      emulator.dispose();
    }
  }
  const replay = await replayHistory({ file, cols: meta.cols, rows: meta.rows, offset, limit });
  const older = replay.total - offset - replay.lines.length > 0 || !replay.fromStart;
  return { ...base, content: replay.lines.join('\n'), lines: replay.lines.length, total_lines: replay.total, truncated: older || offset > 0 };
}

/** A closed session's last screen as style runs, replayed from its transcript's end (the screenshot). */
export async function closedStyledScreen(store: SessionStore, ref: string, scrollback: number): Promise<{ session: string; screen: StyledScreen }> {
  const meta = store.find(ref);
  if (!meta)
    throw new SwitchboardError(ErrorCode.SessionNotFound, `No session "${ref}". Call list with include_closed to see the sessions, or open a new one.`);
  const emulator = await replayTail(path.join(store.sessionDir(meta.id), OUTPUT_LOG), meta, scrollback);
  try {
    return { session: meta.id, screen: emulator.styledScreen() };
  } finally {
    emulator.dispose();
  }
}

/** Where replayTail starts reading the transcript. */
function replayedFrom(file: string): number {
  const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
  return Math.max(0, size - REPLAY_TAIL_BYTES);
}

async function replayTail(file: string, meta: SessionMeta, scrollback: number): Promise<Emulator> {
  const emulator = await Emulator.create({ cols: meta.cols, rows: meta.rows, scrollback, nonce: meta.nonce ?? '', headLines: 0, compactScrollback: false });
  const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
  const start = replayedFrom(file);
  if (size > 0) {
    let offset = start;
    for await (const chunk of fs.createReadStream(file, { start, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
      emulator.write(chunk, offset, offset + chunk.length);
      offset += chunk.length;
      await emulator.whenParsed();
    }
  }
  return emulator;
}
