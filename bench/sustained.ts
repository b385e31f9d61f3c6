/**
 * Sustained output (issue 6 item 3): `cat` of a large file in a session of a real hub with
 * everything on (emulator, transcript, command tracking, an MCP client waiting on `execute`,
 * one UI viewer watching over /ws and acking every frame), as a ratio of node-pty alone
 * reading the same file in the same run. Zero loss: the transcript must hold every byte.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import WebSocket from 'ws';
import { UI_PROTOCOL_VERSION } from '../src/ui-protocol.js';
import { bareThroughput } from './baseline.js';
import { httpClient, startHub, tool, transcriptBytes, type BenchHub } from './hubProcess.js';
import { mib, now, type Row } from './stats.js';

/** A viewer that acks what it receives at once (a renderer that keeps up). */
async function watch(hub: BenchHub, session: string): Promise<{ chars: () => number; close: () => void }> {
  // Upgrades must carry our own Origin, as a page of the UI does.
  const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/ws`, { headers: { Authorization: `Bearer ${hub.token}` }, origin: `http://127.0.0.1:${hub.port}` });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let chars = 0;
  let unacked = 0;
  ws.on('message', (raw: Buffer) => {
    const message = JSON.parse(raw.toString()) as { type: string; data?: string };
    if (message.type !== 'frame' || message.data === undefined) return;
    chars += message.data.length;
    unacked += message.data.length;
    if (unacked >= 5_000) {
      ws.send(JSON.stringify({ type: 'ack', session, bytes: unacked }));
      unacked = 0;
    }
  });
  ws.send(JSON.stringify({ type: 'hello', protocol: UI_PROTOCOL_VERSION }));
  ws.send(JSON.stringify({ type: 'subscribe', session }));
  return { chars: () => chars, close: () => ws.close() };
}

export async function sustainedOutput(rows: Row[], work: string, floodMb: number): Promise<void> {
  const file = path.join(work, 'flood.txt');
  const line = `${'The quick brown fox jumps over the lazy dog 0123456789 '.repeat(2).trim()}\n`;
  const chunk = line.repeat(Math.ceil((1024 * 1024) / line.length));
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < floodMb; i++) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  const size = fs.statSync(file).size;

  const bare = await bareThroughput(file);
  const hub = await startHub({}, process.env.SB_BENCH_HUB_ARGS ? process.env.SB_BENCH_HUB_ARGS.split(' ') : []);
  try {
    const agent = await httpClient(hub, 'bench-sustained');
    const session = (await tool(agent, 'execute', { command: 'true' })).session as string;
    const viewer = await watch(hub, session);
    const start = now();
    const result = await tool(agent, 'execute', { command: `cat ${file}`, session, timeout_ms: 600_000, max_lines: 10 }, 600_000);
    const elapsed = now() - start;
    viewer.close();
    await agent.close();
    if (result.status !== 'completed' || result.exit_code !== 0) throw new Error(`cat did not complete: ${JSON.stringify(result).slice(0, 300)}`);
    const rate = size / (elapsed / 1000);
    const bareRate = size / (bare.ms / 1000);
    rows.push({
      case: `\`cat\` ${floodMb} MiB in a hub session (emulator, transcript, tracking, one viewer over /ws)`,
      value: `${mib(rate)}/s`,
      baseline: `${mib(bareRate)}/s (node-pty alone)`,
      ratio: `${(rate / bareRate).toFixed(2)}×`,
    });
    const kept = transcriptBytes(hub, session);
    rows.push({
      case: 'transcript bytes vs bytes node-pty read (zero loss)',
      value: `${kept}`,
      baseline: `${bare.bytes}`,
      ratio: kept >= bare.bytes ? 'complete' : `LOST ${bare.bytes - kept} bytes`,
    });
    rows.push({ case: '… characters the viewer received in frames (the rest as snapshots)', value: `${viewer.chars()}`, baseline: '—', ratio: '—' });
  } finally {
    await hub.stop();
  }
}
