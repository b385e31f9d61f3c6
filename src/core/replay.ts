import * as fs from 'node:fs';
import { Emulator } from './emulator.js';
import type { TrackedCommand } from './commandTracker.js';

export interface ReplayRequest {
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

export interface ReplayResult {
  lines: string[];
  /** Every line of the command's output. */
  total: number;
  /** False when the range held no complete command (a truncated transcript). */
  found: boolean;
}

/**
 * Renders a past command's output from the transcript: its bytes go through a scratch
 * emulator with the same tracker, which keeps just the requested lines as they complete.
 * Memory stays bounded by `limit`, whatever the output's size; time is one parse of it.
 */
export async function replayCommandOutput(request: ReplayRequest): Promise<ReplayResult> {
  const emulator = new Emulator({
    cols: request.cols,
    rows: 24,
    scrollback: 200,
    nonce: request.nonce,
    headLines: request.limit,
    headFrom: request.offset,
  });
  const seen: { started: TrackedCommand | null; finished: TrackedCommand | null } = { started: null, finished: null };
  emulator.tracker.onDidStartCommand((command) => (seen.started ??= command));
  emulator.tracker.onDidFinishCommand((command) => (seen.finished ??= command));
  try {
    const decoder = new TextDecoder();
    let offset = request.startByte;
    const stream = fs.createReadStream(request.file, { start: request.startByte, end: Math.max(request.startByte, request.endByte - 1), highWaterMark: 256 * 1024 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      emulator.write(decoder.decode(chunk, { stream: true }), offset, offset + chunk.length);
      offset += chunk.length;
      await emulator.whenParsed(); // bounded backlog: one chunk at a time
      if (seen.finished) break;
    }
    emulator.write(decoder.decode(), offset, offset);
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
