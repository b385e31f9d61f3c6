import * as pty from 'node-pty';
import { now } from './stats.js';

/**
 * Baselines measured in the same run as the figures they are compared with: node-pty alone,
 * no emulator, no transcript, no MCP.
 */

/** Round trips of `echo hi` in a bare bash (no rc, plain prompt): write → prompt back, after `warmUp` untimed ones. */
export async function bareRoundTrips(count: number, warmUp = 0): Promise<number[]> {
  const shell = pty.spawn('/bin/bash', ['--norc', '--noprofile', '-i'], {
    cols: 120,
    rows: 30,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PS1: 'READY$ ', TERM: 'xterm-256color' },
  });
  let buffer = '';
  let waiter: (() => void) | null = null;
  let done: (text: string) => boolean = () => false;
  shell.onData((data) => {
    buffer += data;
    if (waiter && done(buffer)) {
      const resolve = waiter;
      waiter = null;
      resolve();
    }
  });
  // The prompt is back once the output ends with it (bash may put mode switches before it).
  const waitFor = (check: (text: string) => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      done = check;
      if (check(buffer)) return resolve();
      const timer = setTimeout(() => reject(new Error(`bare bash did not answer; got ${JSON.stringify(buffer.slice(-80))}`)), 10_000);
      waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  await waitFor((text) => text.endsWith('READY$ '));
  const samples: number[] = [];
  for (let i = 0; i < warmUp + count; i++) {
    buffer = '';
    const start = now();
    shell.write('echo hi\r');
    // `hi\r\n` twice: the echoed command line, then its output; then the prompt.
    await waitFor((text) => text.split('hi\r\n').length >= 3 && text.endsWith('READY$ '));
    if (i >= warmUp) samples.push(now() - start);
  }
  // `exit`, then SIGKILL if bash is still there after 2 s: a live pty keeps the bench from exiting.
  const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
  shell.write('exit\r');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
  clearTimeout(timer);
  try {
    shell.kill('SIGKILL');
  } catch {
    /* already gone */
  }
  return samples;
}

/** node-pty alone reading `cat <file>` to the end: bytes, elapsed ms, and this process's CPU ms meanwhile. */
export async function bareThroughput(file: string): Promise<{ bytes: number; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = now();
  const child = pty.spawn('/bin/cat', [file], { cols: 200, rows: 50, encoding: null, env: { PATH: process.env.PATH } });
  let bytes = 0;
  child.onData((data) => {
    bytes += (data as unknown as Buffer).length;
  });
  await new Promise<void>((resolve) => child.onExit(() => resolve()));
  const used = process.cpuUsage(cpu);
  return { bytes, ms: now() - start, cpuMs: (used.user + used.system) / 1000 };
}

/** node-pty alone running a program to its exit, reading every byte: elapsed ms and bytes. */
export async function bareRun(file: string, args: string[]): Promise<{ bytes: number; ms: number }> {
  const start = now();
  const child = pty.spawn(file, args, { cols: 200, rows: 50, encoding: null, env: { PATH: process.env.PATH } });
  let bytes = 0;
  child.onData((data) => {
    bytes += (data as unknown as Buffer).length;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not exit within 60 s`)), 60_000);
    child.onExit(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { bytes, ms: now() - start };
}
