/**
 * Where each command's output is in a terminal's buffer, for "scroll to command" (a click in
 * the timeline): a marker at the line each frame was written to, tagged with the transcript
 * byte its output reaches (newest MAX_FRAME_MARKS kept), and the snapshot's first line.
 */
import type { IMarker, Terminal } from '@xterm/xterm';
import type { UiCommandRecord } from '../../src/ui-protocol/index.js';

/** Positions remembered (one per frame, newest kept). */
const MAX_FRAME_MARKS = 2_000;
const FLASH_MS = 1_400;

export class CommandMarks {
  private snapshotTop: IMarker | undefined;
  private frameMarks: { end: number; marker: IMarker }[] = [];

  constructor(private readonly term: Terminal) {}

  /** A snapshot was written (the buffer was reset): its top line, and its end as the first mark. */
  snapshotWritten(through: number): void {
    const buffer = this.term.buffer.normal;
    this.snapshotTop = this.term.registerMarker(-(buffer.baseY + buffer.cursorY));
    this.frameWritten(through);
  }

  /** A frame was written: the output up to `end` reaches the cursor's line. */
  frameWritten(end: number): void {
    const marker = this.term.registerMarker(0);
    if (!marker) return;
    this.frameMarks.push({ end, marker });
    if (this.frameMarks.length > MAX_FRAME_MARKS) this.frameMarks.shift()?.marker.dispose();
  }

  clear(): void {
    for (const { marker } of this.frameMarks) marker.dispose();
    this.frameMarks = [];
    this.snapshotTop?.dispose();
    this.snapshotTop = undefined;
  }

  /**
   * Scrolls to a command: the line where the frame holding its output's first byte was
   * written, else its line in the snapshot. False when neither is known.
   */
  scrollTo(record: UiCommandRecord): boolean {
    let line = -1;
    let best: IMarker | undefined;
    for (const mark of this.frameMarks) {
      if (mark.end <= record.output_start_byte) best = mark.marker;
      else break;
    }
    // Marks start at the snapshot's end: a command older than the snapshot has none.
    if (best && !best.isDisposed && best.line >= 0) {
      line = best.line;
    } else if (record.start_line != null && this.snapshotTop && !this.snapshotTop.isDisposed && this.snapshotTop.line >= 0) {
      line = this.snapshotTop.line + record.start_line;
    }
    if (line < 0) return false;
    const target = Math.max(0, line - 1);
    this.term.scrollToLine(Math.max(0, target - 2));
    this.flashLine(target);
    return true;
  }

  private flashLine(line: number): void {
    const buffer = this.term.buffer.active;
    if (buffer.type !== 'normal') return;
    const marker = this.term.registerMarker(line - (buffer.baseY + buffer.cursorY));
    if (!marker) return;
    const decoration = this.term.registerDecoration({ marker, width: this.term.cols, layer: 'bottom' });
    decoration?.onRender((element) => element.classList.add('command-flash'));
    setTimeout(() => {
      decoration?.dispose();
      marker.dispose();
    }, FLASH_MS);
  }
}
