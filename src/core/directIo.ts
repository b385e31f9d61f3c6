import * as fs from 'node:fs';

/**
 * What writing with direct I/O (`O_DIRECT`, Linux) needs: the open flag, the alignment, and
 * memory at an aligned address to write from. Used by `appendFile.ts` for floods.
 *
 * The kernel refuses (EINVAL) a direct write whose file offset, length or memory address is not
 * a multiple of the device's logical block size (512 B or 4 KiB). Offsets and lengths are kept
 * multiples of `DIRECT_ALIGNMENT`; the memory is a WebAssembly.Memory's, which V8 maps as whole
 * pages. A Buffer's own memory comes from malloc, 16-byte aligned: the kernel refuses it.
 */

/** The `fs.open` flag; undefined where there is none (macOS, whose F_NOCACHE Node cannot set). */
export const O_DIRECT: number | undefined = fs.constants.O_DIRECT;

/** Direct writes start and end at multiples of this: the largest logical block size in common use. */
export const DIRECT_ALIGNMENT = 4096;

/** A staging buffer's size in WebAssembly pages (64 KiB): 1 MiB + 64 KiB, a transcript batch and what the last write held back. */
const STAGING_PAGES = 17;
/** Staging buffers lent at once, across all files; past that, a write goes through the page cache. */
const MAX_LENT = 4;
/** Returned buffers kept for the next flood (each is ~1 MiB of resident memory). */
const MAX_IDLE = 1;

const idle: Buffer[] = [];
let lent = 0;

/** A page-aligned buffer to fill and write from, or null when `MAX_LENT` are out (or no memory could be had). */
export function borrowStagingBuffer(): Buffer | null {
  if (lent >= MAX_LENT) return null;
  let buffer = idle.pop();
  if (!buffer) {
    try {
      buffer = Buffer.from(new WebAssembly.Memory({ initial: STAGING_PAGES, maximum: STAGING_PAGES }).buffer);
    } catch {
      // V8 reserves address space per memory; where it has none left, the page cache will do.
      return null;
    }
  }
  lent++;
  return buffer;
}

/** Gives back a buffer from `borrowStagingBuffer` once its write completed. */
export function returnStagingBuffer(buffer: Buffer): void {
  lent--;
  if (idle.length < MAX_IDLE) idle.push(buffer);
}
