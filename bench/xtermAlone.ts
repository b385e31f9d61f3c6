/**
 * The floor under a session's memory: a bare `@xterm/headless` process holding `terminals`
 * terminals of the same size and scrollback as the hub's sessions in bench/memory.ts, each fed
 * `seq 1 <lines>` (with `width` > 0: each number zero-padded to that many columns, as
 * `seq -f '%0<width>g'`). Run as a child process by memory.ts:
 *
 *   node --expose-gc dist/bench/xtermAlone.js <terminals> <cols> <rows> <scrollback> <lines> <width>
 *
 * Prints one JSON line: RSS deltas per terminal (bytes) 1 s after the fill and 1 s after a
 * full GC.
 */
import xterm from '@xterm/headless';

/** `--expose-gc`'s global. */
declare function gc(): void;

function rss(): number {
  return process.memoryUsage().rss;
}

async function main(): Promise<void> {
  const [terminals, cols, rows, scrollback, lines, width] = process.argv.slice(2).map(Number) as [number, number, number, number, number, number];
  gc();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = rss();
  const held: xterm.Terminal[] = [];
  for (let i = 0; i < terminals; i++) {
    const terminal = new xterm.Terminal({ cols, rows, scrollback, allowProposedApi: true });
    held.push(terminal);
    // Written in chunks the size a PTY read gives, as the hub's sessions receive it.
    let chunk = '';
    for (let n = 1; n <= lines; n++) {
      chunk += `${String(n).padStart(width, '0')}\r\n`;
      if (chunk.length >= 4096 || n === lines) {
        await new Promise<void>((resolve) => terminal.write(chunk, resolve));
        chunk = '';
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const afterFill = rss();
  gc();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const collected = rss();
  process.stdout.write(`${JSON.stringify({ afterFill: (afterFill - before) / terminals, collected: (collected - before) / terminals, held: held.length })}\n`);
}

void main();
