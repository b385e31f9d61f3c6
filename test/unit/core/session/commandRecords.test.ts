/**
 * A live session's finished commands (src/core/session/commandRecords.ts): each becomes the
 * record commands.jsonl holds, is written there, and is kept for the timeline and `read` by seq —
 * at most MAX_COMMAND_RECORDS of them, the oldest dropped first (they stay in commands.jsonl).
 */
import { describe, expect, it } from 'vitest';
import type { TrackedCommand } from '../../../../src/core/shell/commandTracker.js';
import { CommandRecords, MAX_COMMAND_RECORDS, OUTPUT_HEAD_CHARS } from '../../../../src/core/session/commandRecords.js';
import type { CommandRecord } from '../../../../src/core/types.js';

/** A command as the tracker hands it over at its D mark. */
function finished(seq: number, extra: Partial<TrackedCommand> = {}): TrackedCommand {
  return {
    seq,
    commandLine: `echo ${seq}`,
    cwd: '/tmp',
    startedAt: 1_000 * seq,
    endedAt: 1_000 * seq + 5,
    exitCode: 0,
    start: { marker: undefined, col: 0 },
    end: { marker: undefined, col: 0 },
    endRowText: null,
    headLines: [],
    byFallback: false,
    lineFeeds: 1,
    startByte: 100 * seq,
    endByte: 100 * seq + 50,
    ...extra,
  } as TrackedCommand;
}

describe('CommandRecords', () => {
  it('turns a finished command into its commands.jsonl record and writes it there, in order', () => {
    const written: CommandRecord[] = [];
    const records = new CommandRecords({ appendCommand: (record) => written.push(record) });
    const first = records.add(finished(1, { commandLine: 'make', cwd: '/src', exitCode: 2, lineFeeds: 3, endRowText: 'no newline at the end' }));
    expect(first).toEqual({
      seq: 1,
      command: 'make',
      cwd: '/src',
      started_at: 1_000,
      ended_at: 1_005,
      exit_code: 2,
      output_start_byte: 100,
      output_end_byte: 150,
      total_lines: 4, // three line feeds and a last line without one
      output_head: 'no newline at the end',
    });
    const second = records.add(finished(2, { lineFeeds: 3, endRowText: '' }));
    expect(second.total_lines).toBe(3);
    expect(written).toEqual([first, second]);
    expect(records.get(1)).toEqual(first);
    expect(records.all()).toEqual([first, second]);
  });

  it('keeps the first lines of the output as output_head: at most five, each cut, the unterminated last line when it is among them', () => {
    const records = new CommandRecords(null);
    const short = records.add(finished(1, { headLines: ['one', 'two   '], endRowText: 'three' }));
    expect(short.output_head).toBe('one\ntwo\nthree');
    const long = records.add(finished(2, { headLines: ['a', 'b', 'c', 'd', 'e', 'f', 'x'.repeat(500)], endRowText: 'tail' }));
    expect(long.output_head).toBe('a\nb\nc\nd\ne');
    const wide = records.add(finished(3, { headLines: ['y'.repeat(500)] }));
    expect(wide.output_head).toBe(`${'y'.repeat(OUTPUT_HEAD_CHARS - 1)}…`);
    expect(records.add(finished(4)).output_head).toBe('');
  });

  it('keeps records without a transcript too', () => {
    const records = new CommandRecords(null);
    records.add(finished(1));
    expect(records.get(1)?.command).toBe('echo 1');
  });

  it(`keeps the latest ${MAX_COMMAND_RECORDS}, dropping the oldest first; every one is still written`, () => {
    let written = 0;
    const records = new CommandRecords({ appendCommand: () => written++ });
    for (let seq = 1; seq <= MAX_COMMAND_RECORDS + 2; seq++) records.add(finished(seq));
    expect(written).toBe(MAX_COMMAND_RECORDS + 2);
    expect(records.get(1)).toBeUndefined();
    expect(records.get(2)).toBeUndefined();
    expect(records.get(3)?.seq).toBe(3);
    const all = records.all();
    expect(all).toHaveLength(MAX_COMMAND_RECORDS);
    expect([all[0]!.seq, all.at(-1)!.seq]).toEqual([3, MAX_COMMAND_RECORDS + 2]);
  });
});
