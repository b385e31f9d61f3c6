import * as pty from 'node-pty';
import { now } from './stats.js';

/**
 * Baselines measured in the same run as the figures they are compared with: node-pty alone,
 * no emulator, no transcript, no MCP.
 */

/** Round trips of `echo hi` in a bare bash (no rc, plain prompt): write → prompt back. */
export async function bareRoundTrips(count: number): Promise<number[]> {
  const shell = pty.spawn('/bin/bash', ['--norc', '--noprofile', '-i'], {
    cols: 120,
    rows: 30,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PS1: 'READY$ ', TERM: 'xterm-256color' },
  });
  let buffer = '';
  let waiter: ((value: void) => void) | null = null;
  let expected = '';
  shell.onData((data) => {
    buffer += data;
    if (waiter && buffer.includes(expected)) {
      const resolve = waiter;
      waiter = null;
      resolve();
    }
  });
  const waitFor = (text: string): Promise<void> =>
    new Promise((resolve) => {
      expected = text;
      if (buffer.includes(text)) return resolve();
      waiter = resolve;
    });
  await waitFor('READY$ ');
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    buffer = '';
    const start = now();
    shell.write('echo hi\r');
    await waitFor('hi\r\nREADY$ ');
    samples.push(now() - start);
  }
  shell.kill();
  return samples;
}

/** node-pty alone reading `cat <file>` to the end: bytes per second. */
export async function bareThroughput(file: string): Promise<{ bytes: number; ms: number }> {
  const start = now();
  const child = pty.spawn('/bin/cat', [file], { cols: 200, rows: 50, encoding: null, env: { PATH: process.env.PATH } });
  let bytes = 0;
  child.onData((data) => {
    bytes += (data as unknown as Buffer).length;
  });
  await new Promise<void>((resolve) => child.onExit(() => resolve()));
  return { bytes, ms: now() - start };
}
