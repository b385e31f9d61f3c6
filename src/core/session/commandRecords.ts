import type { TrackedCommand } from '../shell/commandTracker.js';
import type { Transcript } from '../transcript/transcript.js';
import type { CommandRecord } from '../types.js';

/** Command records a live session keeps in memory for the timeline and `read` by seq. */
export const MAX_COMMAND_RECORDS = 5_000;
/** A record's `output_head`: this many first lines of the output… */
const OUTPUT_HEAD_LINES = 5;
/** …each cut at this many characters. */
export const OUTPUT_HEAD_CHARS = 200;

/**
 * A live session's finished commands, oldest first: each written to commands.jsonl
 * (docs/design.md §2.7) and kept for the timeline and `read` view `command` by seq. Memory stays
 * bounded; older records remain in commands.jsonl.
 */
export class CommandRecords {
  private readonly records = new Map<number, CommandRecord>();

  constructor(
    private readonly transcript: Pick<Transcript, 'appendCommand'> | null,
    private readonly max = MAX_COMMAND_RECORDS,
  ) {}

  /** Records a command the tracker saw finish; returns its record, as written to commands.jsonl. */
  add(command: TrackedCommand): CommandRecord {
    const record: CommandRecord = {
      seq: command.seq,
      command: command.commandLine,
      cwd: command.cwd,
      started_at: command.startedAt,
      ended_at: command.endedAt,
      exit_code: command.exitCode,
      output_start_byte: command.startByte,
      output_end_byte: command.endByte,
      total_lines: command.lineFeeds + (command.endRowText ? 1 : 0),
      output_head: outputHead(command),
    };
    this.records.set(record.seq, record);
    if (this.records.size > this.max) this.records.delete(this.records.keys().next().value!);
    this.transcript?.appendCommand(record);
    return record;
  }

  /** Command `seq`, if it finished and is still kept. */
  get(seq: number): CommandRecord | undefined {
    return this.records.get(seq);
  }

  /** Every kept record, oldest first. */
  all(): CommandRecord[] {
    return [...this.records.values()];
  }
}

/**
 * The first lines of a command's output as the screen rendered them (the tracker's head lines,
 * then its unterminated last line). From the screen, not the bytes: what a person typed at an
 * echo-off prompt never reached it (docs/design.md §2.6).
 */
function outputHead(command: Pick<TrackedCommand, 'headLines' | 'endRowText'>): string {
  const lines = command.headLines.slice(0, OUTPUT_HEAD_LINES);
  if (lines.length < OUTPUT_HEAD_LINES && command.endRowText) lines.push(command.endRowText);
  return lines.map((line) => (line.length > OUTPUT_HEAD_CHARS ? `${line.slice(0, OUTPUT_HEAD_CHARS - 1)}…` : line.trimEnd())).join('\n');
}
