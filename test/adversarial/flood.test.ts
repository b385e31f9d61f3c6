/**
 * The adversarial review, floods: a 60 s `base64 /dev/urandom` against a real hub (memory, Ctrl-C, bystanders,
 * marked loss in agents' reads), offset reads of a numbered flood (every character accounted
 * for), and an MCP-over-HTTP client that stops reading its answers while its session floods.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { expectHubFine, hubFor, RawHttp } from './helpers.js';
import { within } from '../integration/helpers/within.js';

const MiB = 1024 * 1024;

let work: string;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'sb-adv-flood-'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The hub's resident memory, from /proc (Linux). */
function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

interface Sample {
  at: number;
  rss: number;
}

/** Samples the hub's RSS every `everyMs` (measurement only, never used to wait for anything). */
function sampleRss(pid: number, everyMs = 250): { samples: Sample[]; stop(): void } {
  const samples: Sample[] = [{ at: Date.now(), rss: rssBytes(pid) }];
  const timer = setInterval(() => {
    try {
      samples.push({ at: Date.now(), rss: rssBytes(pid) });
    } catch {
      clearInterval(timer); // the hub is gone: the test reports why
    }
  }, everyMs);
  onTestFinished(() => clearInterval(timer));
  return { samples, stop: () => clearInterval(timer) };
}

const peak = (samples: Sample[]): number => Math.max(...samples.map((s) => s.rss));

/**
 * The note `read` view `new` format `ansi` leads with when it leaves bytes out: older than its
 * last 1 MiB (still in output.log), or not kept (past output.log's size cap, the flood
 * outgrew the ring that takes over there).
 */
const LOST_NOTE = /^\[… (\d+) earlier bytes (?:left out: [^\n]*|not kept \([^\n]*\)); read view=history or command\]\n/;

function splitLost(content: string): { lost: number; text: string } {
  const note = LOST_NOTE.exec(content);
  return note ? { lost: Number(note[1]), text: content.slice(note[0].length) } : { lost: 0, text: content };
}

/** The note a plain `new` read leads with when what it missed left the scrollback. */
const PLAIN_LOST_NOTE = /^\[… earlier output since your last read is no longer held here; a command's whole output: read view=command\]\n/;

const HEAP_CEILING = { NODE_OPTIONS: '--max-old-space-size=128' };

describe('a flood', () => {
  // V8 grows its heap lazily: without a ceiling this hub's RSS climbs ~150 MiB in 45 s of flood
  // with no leak at all (measured with --trace-gc: live heap after each full GC 21 → 25 MB), so
  // "flat" could not be told from "not collected yet". With a 128 MB old space the collector
  // runs and RSS follows what is retained; a leak shows as growth or kills the hub.
  const hub = hubFor(HEAP_CEILING);

  it("base64 /dev/urandom for 60 s: hub memory bounded and flat, another session answers throughout, far-apart readers are told what they lost; Ctrl-C ends it (exit 130, well before the wait's 10 s)", async () => {
    const agent = await new RawHttp(hub()).initialize('flood-agent');
    const bystander = await new RawHttp(hub()).initialize('flood-bystander');
    // Two more agents read the flooding session rarely: one in ansi (exact characters), one plain.
    const ansiReader = await new RawHttp(hub()).initialize('flood-reader-ansi');
    const plainReader = await new RawHttp(hub()).initialize('flood-reader-plain');
    const { session } = await agent.ok('open', { cwd: work, name: 'flood' });
    const other = await bystander.ok('open', { cwd: work, name: 'bystander' });
    await ansiReader.ok('read', { session, view: 'new', format: 'ansi' });
    await plainReader.ok('read', { session, view: 'new' });
    const baseline = rssBytes(hub().pid);

    const rss = sampleRss(hub().pid);
    const started = await agent.ok('execute', { session, command: 'base64 /dev/urandom', timeout_ms: 500, max_lines: 5 });
    expect(started.status).toBe('running');
    const floodStart = Date.now();
    const floodEnd = floodStart + 60_000;

    // The other session: an `execute` every 200 ms (a steady agent, not a load test: every
    // command also costs the hub a record, which would blur the memory measurement).
    const latencies: number[] = [];
    const farReads: { ansi: Record<string, unknown>; plain: Record<string, unknown> }[] = [];
    let lastFarRead = Date.now();
    for (let n = 0; Date.now() < floodEnd; n++) {
      const before = Date.now();
      const echoed = await bystander.ok('execute', { session: other.session, command: `echo ping-${n}`, timeout_ms: 10_000 });
      latencies.push(Date.now() - before);
      expect(echoed).toMatchObject({ status: 'completed', exit_code: 0, output: `ping-${n}` });
      if (Date.now() - lastFarRead > 15_000) {
        farReads.push({
          ansi: await ansiReader.ok('read', { session, view: 'new', format: 'ansi' }),
          plain: await plainReader.ok('read', { session, view: 'new' }),
        });
        lastFarRead = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const interruptAt = Date.now();
    const interrupted = await agent.ok('send', { session, keys: ['ctrl+c'], wait: { exit: true, timeout_ms: 10_000 } });
    const interruptMs = Date.now() - interruptAt;
    rss.stop();
    const during = rss.samples.filter((s) => s.at >= floodStart && s.at <= floodEnd);
    const first = during.filter((s) => s.at < floodStart + 20_000);
    const last = during.filter((s) => s.at > floodEnd - 20_000);
    console.log(
      JSON.stringify({
        baselineMiB: Math.round(baseline / MiB),
        peakMiB: Math.round(peak(rss.samples) / MiB),
        first20MiB: Math.round(peak(first) / MiB),
        last20MiB: Math.round(peak(last) / MiB),
        every5sMiB: during.filter((_, i) => i % 20 === 0).map((s) => Math.round(s.rss / MiB)),
        pings: latencies.length,
        maxPingMs: Math.max(...latencies),
        interruptMs,
        lost: farReads.map((r) => splitLost(String(r.ansi.content)).lost),
      }),
    );

    // Ctrl-C took effect: the command's D mark (exit 130) came back, before the wait's 10 s.
    // (How long that takes during a flood is bench/interrupt.ts's figure; interruptMs above is logged.)
    expect(interrupted.waited, JSON.stringify(interrupted).slice(0, 300)).toBe('exit');
    const row = ((await agent.ok('list')).sessions as { id: string; state: string; last_exit_code: number | null }[]).find((s) => s.id === session);
    expect(row).toMatchObject({ state: 'idle', last_exit_code: 130 });

    // Memory: bounded, and as high in the first 20 s as in the last 20 s (no steady growth).
    expect(peak(rss.samples) - baseline).toBeLessThan(300 * MiB);
    expect(peak(last)).toBeLessThan(peak(first) + 32 * MiB);
    // The other session answered every call while the flood ran (each one 'completed' before its
    // own 10 s timeout, checked in the loop), many times over. How fast, beside a quiet hub, is
    // bench/manyAgents.ts's figure (`execute echo` p50/p99 during a flood); maxPingMs is logged.
    expect(latencies.length).toBeGreaterThanOrEqual(10);

    // Readers 15 s apart were told, in the content and the flag, that output was dropped.
    expect(farReads.length).toBeGreaterThanOrEqual(3);
    for (const { ansi, plain } of farReads) {
      expect(splitLost(String(ansi.content)).lost).toBeGreaterThan(1_000_000);
      expect(ansi.truncated).toBe(true);
      expect(String(plain.content)).toMatch(PLAIN_LOST_NOTE);
      expect(plain.truncated).toBe(true);
    }
    // Once they have caught up, a read that missed nothing carries no note and no flag.
    await ansiReader.ok('read', { session, view: 'new', format: 'ansi' });
    await plainReader.ok('read', { session, view: 'new' });
    expect(await agent.ok('execute', { session, command: 'echo calm-$((6*7))' })).toMatchObject({ status: 'completed', output: 'calm-42' });
    const calmAnsi = await ansiReader.ok('read', { session, view: 'new', format: 'ansi' });
    const calmPlain = await plainReader.ok('read', { session, view: 'new' });
    expect(String(calmAnsi.content)).toContain('calm-42');
    expect(String(calmAnsi.content)).not.toMatch(LOST_NOTE);
    expect(calmAnsi.truncated).toBe(false);
    expect(String(calmPlain.content)).toContain('calm-42');
    expect(String(calmPlain.content)).not.toMatch(PLAIN_LOST_NOTE);
    expect(calmPlain.truncated).toBe(false);

    for (const client of [agent, bystander, ansiReader, plainReader]) await client.close();
    await expectHubFine(hub());
  }, 120_000);

  it('yes: kill with SIGINT ends it within the hub’s kill wait (ended_by SIGINT, no escalation)', async () => {
    const agent = await new RawHttp(hub()).initialize('yes-agent');
    const { session } = await agent.ok('open', { cwd: work, name: 'yes' });
    expect(await agent.ok('execute', { session, command: 'yes', timeout_ms: 1_000, max_lines: 5 })).toMatchObject({ status: 'running' });
    // ended_by is SIGINT only when the job ended within the kill wait after it (300 ms here):
    // the hub's own measure. How long the answer takes is bench/interrupt.ts's figure.
    const killed = await agent.ok('kill', { session, signal: 'SIGINT' });
    expect(killed).toMatchObject({ ended_by: 'SIGINT', state: 'idle' });
    expect(await agent.ok('execute', { session, command: 'echo after-yes' })).toMatchObject({ status: 'completed', output: 'after-yes' });
    await agent.close();
  });
});

/** Characters of `seq 1 N` as a terminal shows them ("1\r\n2\r\n…") before line `k`. */
function seqOffset(k: number): number {
  let total = 0;
  for (let lo = 1, digits = 1; lo < k; lo *= 10, digits++) total += (Math.min(k, lo * 10) - lo) * (digits + 2);
  return total;
}

/** The line of `seq` output holding character `offset`. */
function seqLineAt(offset: number): number {
  let lo = 1;
  let hi = 1;
  while (seqOffset(hi + 1) <= offset) hi *= 2;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (seqOffset(mid) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Characters [from, to) of `seq 1 N`'s terminal output. */
function seqText(from: number, to: number): string {
  const first = seqLineAt(from);
  let text = '';
  for (let k = first, at = seqOffset(first); at < to; k++) {
    const line = `${k}\r\n`;
    text += line;
    at += line.length;
  }
  return text.slice(from - seqOffset(first), to - seqOffset(first));
}

describe('offset reads during a flood', () => {
  const hub = hubFor();

  it('read view new, format ansi: every byte once, in order; each gap reported with its exact size', async () => {
    // The numbers come in bursts, each let go through a FIFO (the loop waits on it after each
    // burst) once the reader has read: a read after a small burst (~150 KB, under the 1 MiB a
    // read returns at most) loses nothing, a read after a large one (~7 MB) is told what it lost,
    // whatever the machine's speed. The bursts together print exactly what `seq 1 LAST` prints.
    const BURSTS = [20_000, 1_000_000, 20_000, 20_000, 1_000_000, 20_000, 1_000_000, 20_000];
    const LAST = BURSTS.reduce((sum, n) => sum + n, 0);
    // One FIFO per burst: a writer can then only meet the reader that waits after its burst.
    const gates = BURSTS.map((_, i) => path.join(work, `numbers-gate-${i + 1}`));
    execFileSync('mkfifo', gates);
    const agent = await new RawHttp(hub()).initialize('numbers-agent');
    const reader = await new RawHttp(hub()).initialize('numbers-reader');
    const { session } = await agent.ok('open', { cwd: work, name: 'numbers' });
    // A new reader starts at the session's first byte (absolute offset 0): from here on every
    // read's text (ASCII: a byte per character) has a known place in the stream, moved on by
    // each reported gap.
    const reads = [await reader.ok('read', { session, view: 'new', format: 'ansi' })];
    expect(splitLost(String(reads[0]!.content)).lost).toBe(0);
    const command = `s=1; i=0; for n in ${BURSTS.join(' ')}; do seq $s $((s+n-1)); s=$((s+n)); i=$((i+1)); read -r _ < ${path.join(work, 'numbers-gate-')}$i; done`;
    const started = await agent.ok('execute', { session, command, timeout_ms: 200, max_lines: 4 });
    expect(started.status).toBe('running');
    const kinds: ('small' | 'large')[] = [];
    for (const [i, n] of BURSTS.entries()) {
      // Opening the burst's FIFO completes once the loop waits on it: the burst is all written.
      const writer = await within(open(gates[i]!, 'w'), 60_000, `burst ${i + 1} of numbers to be written`);
      reads.push(await reader.ok('read', { session, view: 'new', format: 'ansi' }));
      kinds.push(n < 100_000 ? 'small' : 'large');
      await writer.write('\n'); // lets the next burst go
      await writer.close();
    }
    // The rest (what the hub had not read from the PTY when the last burst ended).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const read = await reader.ok('read', { session, view: 'new', format: 'ansi' });
      reads.push(read);
      if (read.state === 'idle') break;
      if (Date.now() > deadline) throw new Error(`seq 1 ${LAST} still running after 90 s`);
    }

    // Place every read in the stream.
    const segments: { start: number; text: string }[] = [];
    const gaps: { start: number; size: number }[] = [];
    let position = 0;
    for (const read of reads) {
      const { lost, text } = splitLost(String(read.content));
      expect(read.truncated, `truncated with ${lost} lost`).toBe(lost > 0);
      if (lost > 0) gaps.push({ start: position, size: lost });
      position += lost;
      segments.push({ start: position, text });
      position += text.length;
    }
    // Where `1\r\n` began: from the first whole number line any read returned.
    let seqStart: number | undefined;
    for (const { start, text } of segments) {
      const line = /\n(\d+)\r\n/.exec(text);
      if (line) {
        seqStart = start + line.index + 1 - seqOffset(Number(line[1]));
        break;
      }
    }
    expect(seqStart).toBeDefined();
    const seqEnd = seqStart! + seqOffset(LAST + 1);
    expect(position, 'the reads reached the end of the output').toBeGreaterThan(seqEnd);
    // Every character any read returned inside the output is the one `seq` printed there: a
    // duplicate, a missing character or a gap reported with the wrong size would shift the rest.
    let seen = 0;
    for (const { start, text } of segments) {
      const from = Math.max(start, seqStart!);
      const to = Math.min(start + text.length, seqEnd);
      if (from >= to) continue;
      const got = text.slice(from - start, to - start);
      const want = seqText(from - seqStart!, to - seqStart!);
      if (got !== want) {
        let at = 0;
        while (got[at] === want[at]) at++;
        throw new Error(
          `read text at offset ${from + at} differs: got ${JSON.stringify(got.slice(at, at + 40))}, expected ${JSON.stringify(want.slice(at, at + 40))}`,
        );
      }
      seen += to - from;
    }
    const lostInOutput = gaps.reduce((sum, g) => sum + Math.max(0, Math.min(g.start + g.size, seqEnd) - Math.max(g.start, seqStart!)), 0);
    expect(seen + lostInOutput).toBe(seqEnd - seqStart!);
    console.log(JSON.stringify({ reads: reads.length, gaps: gaps.length, lostChars: lostInOutput, seenChars: seen }));
    // Both kinds happened, where the bursts put them: each read after a small burst lost nothing
    // and has text, each read after a large one was told exactly what it lost (checked above).
    kinds.forEach((kind, i) => {
      const read = reads[i + 1]!;
      if (kind === 'small')
        expect({ truncated: read.truncated, empty: String(read.content).length === 0 }, `read after burst ${i + 1}`).toEqual({
          truncated: false,
          empty: false,
        });
      else expect(read.truncated, `read after burst ${i + 1}`).toBe(true);
    });
    expect(gaps.length).toBeGreaterThanOrEqual(BURSTS.filter((n) => n >= 100_000).length);

    await agent.close();
    await reader.close();
  }, 120_000);
});

/**
 * A request sent over its own connection by a client that then never reads a byte of the
 * answer (the socket is paused: the kernel's receive window fills and stays full).
 */
function stalledRequest(client: RawHttp, method: 'POST' | 'GET', body = ''): net.Socket {
  const socket = net.connect({ host: '127.0.0.1', port: client.hub.port });
  socket.pause();
  socket.on('error', () => undefined);
  const headers = {
    ...client.headers(method === 'GET' ? { Accept: 'text/event-stream' } : {}),
    Host: `127.0.0.1:${client.hub.port}`,
    'Content-Length': String(Buffer.byteLength(body)),
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`${method} /mcp HTTP/1.1\r\n${head}\r\n${body}`);
  return socket;
}

/** Resumes a stalled socket and resolves with everything it still gets until the hub closes it. */
function drain(socket: net.Socket, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`the connection was still open ${deadlineMs} ms after resuming; got ${text.length} chars`)), deadlineMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.resume();
  });
}

/** Resumes a stalled socket and resolves with its first data. */
function firstData(socket: net.Socket, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no data within ${deadlineMs} ms`)), deadlineMs);
    socket.setEncoding('utf8');
    socket.once('data', (chunk: string) => {
      clearTimeout(timer);
      socket.pause();
      resolve(chunk);
    });
    socket.resume();
  });
}

const DROPPED = /http: dropped an answer its client stopped reading \(\d+ bytes unread for (\d+) ms\)/g;

describe('an MCP-over-HTTP client that stops reading', () => {
  const STALL_MS = 2_000;
  // 16 000 lines of 119 characters in the scrollback: a `read` of the whole history is then
  // ~5 MB of answer, more than the kernel's socket buffers take (~4 MB here), so the rest
  // waits in the hub itself. The heap ceiling as above: what building those answers leaves
  // behind is collected, so RSS shows what is held (measured: +110 MiB with it, +150–180
  // without).
  const hub = hubFor({ ...HEAP_CEILING, SWITCHBOARD_HTTP_STALL_MS: String(STALL_MS), SWITCHBOARD_SCROLLBACK: '16000', SWITCHBOARD_AGENT_SCROLLBACK: '16000' });

  it('its unread answers are dropped within the stall time, hub memory stays bounded, another client is unaffected', async () => {
    // Two at once: building each answer takes ~30 MB of old space for a while, and three at once
    // under the 128 MB ceiling killed the hub once on CI (reproduced here with 80 and 96 MB),
    // which reset the other client's calls: the ceiling, not the hub, failed.
    const STALLED = 2;
    const agent = await new RawHttp(hub()).initialize('stall-agent');
    const other = await new RawHttp(hub()).initialize('stall-bystander');
    const staller = await new RawHttp(hub()).initialize('staller');
    const { session } = await agent.ok('open', { cwd: work, name: 'stall-flood' });
    const otherSession = await other.ok('open', { cwd: work });
    const fill = await agent.ok('execute', { session, command: 'base64 -w 119 /dev/urandom | head -n 16000', timeout_ms: 60_000, max_lines: 5 });
    expect(fill).toMatchObject({ status: 'completed', total_lines: 16_000 });
    expect(await agent.ok('execute', { session, command: 'base64 -w 119 /dev/urandom', timeout_ms: 300, max_lines: 5 })).toMatchObject({ status: 'running' });
    const baseline = rssBytes(hub().pid);
    const rss = sampleRss(hub().pid);

    // The staller's standalone GET stream, unread too: it carries nothing, so it is never dropped.
    const idleStream = stalledRequest(staller, 'GET');
    const body = (id: number): string =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read', arguments: { session, view: 'history', limit: 100_000 } } });
    const stalled = Array.from({ length: STALLED }, (_, i) => stalledRequest(staller, 'POST', body(1_000 + i)));
    const sentAt = Date.now();

    // Meanwhile another client's calls keep being answered, until every stalled answer is dropped.
    let dropped = 0;
    const latencies: number[] = [];
    for (let n = 0; dropped < STALLED; n++) {
      if (Date.now() - sentAt > STALL_MS + 30_000) throw new Error(`only ${dropped} of ${STALLED} stalled answers dropped; hub stderr:\n${hub().stderr()}`);
      const before = Date.now();
      const answer = await within(
        other.ok('execute', { session: otherSession.session, command: `echo still-${n}` }),
        30_000,
        `another client's call #${n} while answers stall`,
      );
      expect(answer).toMatchObject({ output: `still-${n}` });
      latencies.push(Date.now() - before);
      dropped = hub().stderr().match(DROPPED)?.length ?? 0;
    }
    const droppedMs = Date.now() - sentAt;
    rss.stop();
    console.log(
      JSON.stringify({
        droppedMs,
        baselineMiB: Math.round(baseline / MiB),
        peakMiB: Math.round(peak(rss.samples) / MiB),
        calls: latencies.length,
        maxCallMs: Math.max(...latencies),
      }),
    );
    // Each answer was dropped once it had not moved for the stall time, never before (the hub's
    // own measure; how late after it a busy event loop gets to it is logged, not asserted).
    for (const [, stuckMs] of hub().stderr().matchAll(DROPPED)) expect(Number(stuckMs)).toBeGreaterThanOrEqual(STALL_MS);
    expect(peak(rss.samples) - baseline).toBeLessThan(300 * MiB);
    // Every call was answered (each within() above). Not always at once: building the stalled
    // client's 5 MB answers holds the hub's event loop for seconds on a loaded 2-core machine
    // (the cost of those requests, before any stall; measured 2.4–6.7 s with other suites running).

    // What a stalled client gets once it reads again: the start of its answer, then the end
    // of the connection. Never the whole answer (it was dropped), never a hang.
    for (const [i, socket] of stalled.entries()) {
      const text = await drain(socket, 5_000);
      expect(text).toMatch(/^HTTP\/1\.1 200/);
      const answers = text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .filter((line) => {
          try {
            return (JSON.parse(line.slice(6)) as { id?: unknown }).id === 1_000 + i;
          } catch {
            return false; // cut off
          }
        });
      expect(answers).toHaveLength(0);
    }
    // The idle stream was left alone (it was open, nothing of it was dropped), and the staller's
    // MCP session still works.
    expect(hub().stderr().match(DROPPED)).toHaveLength(STALLED);
    const streamHead = await firstData(idleStream, 5_000);
    expect(streamHead).toMatch(/^HTTP\/1\.1 200/);
    expect(streamHead).toMatch(/content-type: text\/event-stream/i);
    expect((await staller.call('list')).isError).toBe(false);
    expect(idleStream.readableEnded).toBe(false);
    idleStream.destroy();

    await agent.ok('kill', { session });
    for (const client of [agent, other, staller]) await client.close();
    await expectHubFine(hub());
  }, 60_000);
});
