import * as v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow after each full GC: 3× what survived it, where V8
 * itself picks 1.1–4× from its GC and allocation speeds.
 *
 * Why: V8 11 (Node 20) counts memory outside its heap allocated since the last full GC against
 * the old generation's room, and a flood allocates it at the PTY's speed (every read is copied
 * to buffer memory, ptyReads.ts; the transcript and viewer frames add theirs). Most of it is
 * dead within a few milliseconds, but it is only freed by the next GC of the young generation,
 * which such small JavaScript garbage fills slowly. In about half of the hubs (their room after
 * the first full GC came out small) a 64 MiB `cat` then brought 3–15 full GCs, each marked on
 * V8's helper threads, which took the cores from the program and the kernel.
 * Measured (docs/decisions.md): with 3× no hub had more than one full GC per `cat`; its helper
 * threads' CPU per 64 MiB `cat` went from 100–235 to 40–115 ms, and the hub's RSS stayed within
 * the noise of the memory bench.
 *
 * V8 reads the flag each time it sets the limit, so it applies from the next full GC on.
 * Electron's newer V8 was not measured here (it cannot run on the test machine).
 */
const HEAP_GROWING_PERCENT = 200;

export function setHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
