/**
 * `echo hi` through the real shim with a minimal JSON-RPC client: newline-delimited JSON over
 * the shim's stdio, nothing validated but the output. Next to the official SDK client's figure
 * it tells Switchboard's share of a round trip (shim, socket, hub, shell) from the client's own
 * (the SDK client parses every answer with zod and checks `structuredContent` against the
 * tool's output schema).
 */
import { spawn } from 'node:child_process';
import * as readline from 'node:readline';
import { now } from './stats.js';

interface Answer {
  id: number;
  result?: { structuredContent?: { output?: string; session?: string } };
  error?: { message: string };
}

export async function rawShimRoundTrips(bin: string, env: Record<string, string>, count: number, warmUp: number): Promise<number[]> {
  const shim = spawn(process.execPath, [bin, 'mcp'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (answer: Answer) => void>();
  readline.createInterface({ input: shim.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as Answer;
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  let id = 0;
  const call = (method: string, params: object): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const timer = setTimeout(() => reject(new Error(`raw shim: no answer to ${method} within 30 s`)), 30_000);
      waiting.set(mine, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      shim.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    });
  try {
    await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-raw', version: '1.0.0' } });
    shim.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const execute = (args: object): Promise<Answer> => call('tools/call', { name: 'execute', arguments: args });
    const session = (await execute({ command: 'echo warm' })).result?.structuredContent?.session;
    for (let i = 0; i < warmUp; i++) await execute({ command: 'echo hi', session });
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = now();
      const answer = await execute({ command: 'echo hi', session });
      samples.push(now() - start);
      if (answer.result?.structuredContent?.output !== 'hi') throw new Error(`raw shim: execute answered ${JSON.stringify(answer).slice(0, 200)}`);
    }
    return samples;
  } finally {
    shim.stdin.end();
    shim.kill();
  }
}
