/**
 * What editing Switchboard's one entry in a host's config file means, whatever the file's syntax
 * (docs/decisions.md, "Host configs"): the launch keys are set, the person's other keys in the
 * entry are kept, and the rest of the file is left as its owner wrote it.
 */
import { asRecord, sameData } from './sameData.js';

export interface EntryEdit {
  /** The file's new text; the very same text when nothing changes. */
  text: string;
  outcome: 'added' | 'updated' | 'unchanged';
}

/** The file is left untouched; the message says where and why (a line, a key). */
export class ConfigEditRefused extends Error {}

interface EntryPlan {
  /** The entry to hold: Switchboard's launch keys, then every other key the person had. */
  merged: Record<string, unknown>;
  upToDate: boolean;
}

export function planEntry(existing: unknown, entry: Record<string, unknown>, launchKeys: readonly string[]): EntryPlan {
  const previous = asRecord(existing);
  const kept = Object.entries(previous ?? {}).filter(([key]) => !launchKeys.includes(key) && !(key in entry));
  const merged = { ...entry, ...Object.fromEntries(kept) };
  const upToDate = previous !== undefined && launchKeys.every((key) => sameData(previous[key], entry[key]));
  return { merged, upToDate };
}

/** Text replaced between two offsets of the original (an insertion when they are equal). */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * Applies non-overlapping splices. At one offset, insertions go before a removal starting there,
 * and insertions keep their order in the list (the sort is stable).
 */
export function applySplices(text: string, splices: Splice[]): string {
  const ordered = [...splices].sort((a, b) => a.start - b.start || a.end - a.start - (b.end - b.start));
  let out = '';
  let cursor = 0;
  for (const splice of ordered) {
    if (splice.start < cursor) throw new Error('overlapping edits');
    out += text.slice(cursor, splice.start) + splice.text;
    cursor = splice.end;
  }
  return out + text.slice(cursor);
}

/** The file's own line break, so added lines match it. */
export function lineBreakOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** 1-based line and column of an offset, for messages that point at the place. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}
