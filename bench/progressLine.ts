/**
 * What progress costs (docs/design.md §3.4). Two figures, each beside a baseline of the same run:
 *
 *   - the line a note quotes, read from a flooded 120×32 emulator (`Emulator.lastTextLine` from
 *     the running command's start), against rendering the whole screen as text (`screenLines`),
 *     the cost it must stay well under;
 *   - a flood through the real shim (`seq`, by `execute`) with a progress token and notes every
 *     100 ms, against the same flood without a token (nothing read, nothing sent).
 */
import { Emulator } from '../src/core/emulation/emulator.js';
import { shimClient, startHub } from './hubProcess.js';
import { median, ms, now, ratio, type Row } from './stats.js';

const COLS = 120;
const ROWS = 32;
/** The interval the flood case asks for: 50 times as many notes as the default. */
const INTERVAL_MS = 100;

async function floodedScreen(): Promise<{ emulator: Emulator; start: ReturnType<Emulator['position']> }> {
  const emulator = await Emulator.create({ cols: COLS, rows: ROWS, scrollback: 1_000, nonce: '', headLines: 0, fastForward: false });
  const prompt = '$ npm test\r\n';
  emulator.write(prompt, 0, prompt.length);
  await emulator.whenParsed();
  const start = emulator.position();
  let text = '';
  for (let i = 0; i < 20_000; i++) text += `PASS src/module${i}/feature.test.ts (${i % 97} ms) ${'.'.repeat(i % 60)}\r\n`;
  emulator.write(text, prompt.length, prompt.length + Buffer.byteLength(text));
  await emulator.whenParsed();
  return { emulator, start };
}

async function lineCost(rows: Row[], turns: number): Promise<void> {
  const { emulator, start } = await floodedScreen();
  try {
    const lines: number[] = [];
    const screens: number[] = [];
    let sink = 0;
    for (let i = 0; i < turns; i++) {
      let t = now();
      for (let j = 0; j < 100; j++) sink += emulator.lastTextLine(100, start).length;
      lines.push((now() - t) / 100);
      t = now();
      for (let j = 0; j < 100; j++) sink += emulator.screenLines().join('\n').length;
      screens.push((now() - t) / 100);
    }
    if (sink === 0) throw new Error('nothing was read');
    rows.push({
      case: `progress: the last output line of a flooded ${COLS}×${ROWS} screen (median of ${turns}×100)`,
      value: us(median(lines)),
      baseline: `${us(median(screens))}: the whole screen as text`,
      ratio: ratio(median(lines), median(screens)),
    });
  } finally {
    start.marker?.dispose();
    emulator.dispose();
  }
}

async function floodCost(rows: Row[], reps: number, lines: number): Promise<void> {
  const hub = await startHub({ SWITCHBOARD_PROGRESS_INTERVAL_MS: String(INTERVAL_MS) });
  try {
    const client = await shimClient(hub, 'bench-progress');
    try {
      const warm = await client.callTool({ name: 'execute', arguments: { command: 'echo warm' } });
      const session = String((warm.structuredContent as { session: string }).session);
      const run = async (withToken: boolean): Promise<{ ms: number; notes: number }> => {
        let notes = 0;
        const start = now();
        const result = await client.callTool(
          { name: 'execute', arguments: { session, command: `seq 1 ${lines}`, timeout_ms: 120_000 } },
          withToken ? { onprogress: () => notes++, timeout: 120_000 } : { timeout: 120_000 },
        );
        const elapsed = now() - start;
        const sc = result.structuredContent as { status?: string; total_lines?: number };
        if (sc.status !== 'completed' || sc.total_lines !== lines) throw new Error(`seq did not complete: ${JSON.stringify(sc).slice(0, 200)}`);
        return { ms: elapsed, notes };
      };
      const plain: number[] = [];
      const told: number[] = [];
      let notes = 0;
      // Alternated, so a slower moment of the machine falls on both.
      for (let rep = 0; rep < reps; rep++) {
        plain.push((await run(false)).ms);
        const withNotes = await run(true);
        told.push(withNotes.ms);
        notes += withNotes.notes;
      }
      rows.push({
        case: `progress: execute \`seq 1 ${lines}\` via shim with a token, a note every ${INTERVAL_MS} ms (${Math.round(notes / reps)} notes a run; median of ${reps})`,
        value: ms(median(told)),
        baseline: `${ms(median(plain))}: the same without a token`,
        ratio: ratio(median(told), median(plain)),
      });
    } finally {
      await client.close();
    }
  } finally {
    await hub.stop();
  }
}

function us(milliseconds: number): string {
  return `${(milliseconds * 1000).toFixed(1)} µs`;
}

export async function progressCost(rows: Row[], turns: number, reps: number, lines: number): Promise<void> {
  await lineCost(rows, turns);
  await floodCost(rows, reps, lines);
}
