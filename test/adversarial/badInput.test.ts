/**
 * The adversarial review, "Bad input over MCP": malformed JSON-RPC, wrong argument types and ranges, oversized
 * bodies, control bytes, broken UTF-8 and hostile open() arguments, against a real hub over HTTP
 * and through the shim. Every case also checks that the hub lives, the next valid call answers,
 * and that nothing of ours (stack trace, source path, state dir, token) leaks into the answer.
 * Cases already covered elsewhere are listed in README.md, not repeated here.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubProcess } from '../integration/helpers/hubProcess.js';
import { expectCleanLog, expectHubFine, expectNoLeak, messagesOf, RawHttp, rawPost, RawShim, startIsolatedHub } from './helpers.js';

let hub: HubProcess;
let stopHub: () => Promise<string>;
let http: RawHttp;
let work: string;
/** A session opened before any case, checked after each one. */
let bystander: Record<string, unknown>;

beforeAll(async () => {
  ({ hub, cleanup: stopHub } = await startIsolatedHub());
  http = await new RawHttp(hub).initialize('bad-input');
  work = mkdtempSync(path.join(tmpdir(), 'sb-adv-bad-'));
  bystander = await http.ok('open', { cwd: work, name: 'bystander' });
});

afterAll(async () => {
  await http?.close();
  if (hub) {
    expectCleanLog(await stopHub(), hub);
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

async function sessionCount(): Promise<number> {
  return ((await http.ok('list', { include_closed: true })).sessions as unknown[]).length;
}

/** After every case: the hub lives, a fresh client's call answers, nothing leaked so far. */
async function fine(): Promise<void> {
  await expectHubFine(hub);
  // No other session was affected: the bystander shell opened first still answers, same pid.
  expect(await http.ok('execute', { session: bystander.session, command: 'echo bystander-ok' })).toMatchObject({ output: 'bystander-ok' });
  const row = ((await http.ok('list')).sessions as { id: string; pid: number; state: string }[]).find((s) => s.id === bystander.session);
  expect(row).toMatchObject({ pid: bystander.pid, state: 'idle' });
  for (const body of http.bodies) expectNoLeak(body, hub);
}

describe('malformed JSON-RPC over HTTP', () => {
  it('JSON without "jsonrpc" but with an id → 400, -32600 carrying that id (number and string ids)', async () => {
    for (const id of [7, 'abc']) {
      const answer = await http.post(JSON.stringify({ id, method: 'tools/list' }));
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    }
    const wrongVersion = await http.post(JSON.stringify({ jsonrpc: '1.0', id: 8, method: 'tools/list' }));
    expect(JSON.parse(wrongVersion.body)).toMatchObject({ id: 8, error: { code: -32600 } });
    // JSON that is not an object at all.
    for (const body of ['42', '"text"', 'null']) {
      const answer = await http.post(body);
      expect(answer.status, body).toBe(400);
      expect(JSON.parse(answer.body), body).toMatchObject({ id: null, error: { code: -32600 } });
    }
    expect((await http.request('tools/list')).result).toBeDefined();
    await fine();
  });

  it('a batch array is refused whole with one -32600 per id, and none of it runs', async () => {
    const marker = path.join(work, `batch-${randomBytes(4).toString('hex')}`);
    const answer = await http.post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'execute', arguments: { command: `touch ${marker}` } } },
        { jsonrpc: '2.0', id: 'b2', method: 'ping' },
      ]),
    );
    expect(answer.status).toBe(400);
    const replies = messagesOf(answer);
    expect(replies.map((m) => [m.id, m.error?.code])).toEqual([
      ['b1', -32600],
      ['b2', -32600],
    ]);
    expect(replies[0]?.error?.message).toMatch(/batch/);
    const empty = await http.post('[]');
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body)).toMatchObject({ id: null, error: { code: -32600 } });
    // A later execute completes, so had the batch run, the marker would exist by now.
    expect(await http.ok('execute', { command: 'echo after-batch', cwd: work })).toMatchObject({ output: 'after-batch' });
    expect(existsSync(marker)).toBe(false);
    await fine();
  });

  it('unknown method → -32601; unknown tool → -32602 naming it (an answer, never a hang)', async () => {
    expect((await http.request('foo/bar')).error).toMatchObject({ code: -32601 });
    const tool = await http.request('tools/call', { name: 'rm_rf', arguments: {} });
    expect(tool.error?.code).toBe(-32602);
    expect(tool.error?.message).toContain('rm_rf');
    await fine();
  });

  it('a 10 MB execute command → 413, nothing runs, the next call is served', async () => {
    const marker = path.join(work, `big-${randomBytes(4).toString('hex')}`);
    const command = `touch ${marker} # ${'x'.repeat(10 * 1024 * 1024)}`;
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'execute', arguments: { command } } }));
    const answer = await rawPost(hub.port, http.headers(), body);
    expect(answer.status).toBe(413);
    const json = answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(json)).toMatchObject({ error: { code: -32600 } });
    expectNoLeak(json, hub);
    expect(await http.ok('execute', { command: 'echo after-big', cwd: work })).toMatchObject({ output: 'after-big' });
    expect(existsSync(marker)).toBe(false);
    await fine();
  });
});

describe('malformed JSON-RPC through the shim', () => {
  it('unknown method → -32601, unknown tool → -32602, stdout stays JSON-RPC only', async () => {
    const shim = await new RawShim(hub).initialize();
    try {
      expect((await shim.request('foo/bar')).error).toMatchObject({ code: -32601 });
      const tool = await shim.request('tools/call', { name: 'rm_rf', arguments: {} });
      expect(tool.error?.code).toBe(-32602);
      expect(await shim.ok('list')).toHaveProperty('sessions');
      shim.assertStdoutClean();
      for (const line of shim.lines) expectNoLeak(line, hub, 'shim stdout');
      expect(shim.stderr).not.toContain(hub.token);
    } finally {
      await shim.close();
    }
    await fine();
  });
});

describe('wrong argument types and ranges', () => {
  it('each is a tool error naming the field and what is allowed; nothing is spawned', async () => {
    const before = await sessionCount();
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['open', { cols: 0 }, 'cols', /from 10 to 1000/],
      ['open', { cols: 100_000 }, 'cols', /from 10 to 1000/],
      ['open', { rows: -5 }, 'rows', /from 2 to 500/],
      ['execute', { command: 'echo x', timeout_ms: -1 }, 'timeout_ms', /from 1 to 86400000/],
      ['execute', { command: 'echo x', timeout_ms: 1e308 }, 'timeout_ms', /from 1 to 86400000/],
      ['execute', { command: 'echo x', max_lines: 'lots' }, 'max_lines', /integer/],
      ['send', { session: 'whatever', keys: {} }, 'keys', /list of strings/],
      ['send', { session: { id: 'x' }, text: 'x' }, 'session', /string/],
      ['read', { session: 'whatever', view: 'everything' }, 'view', /new|screen|history|command/],
    ];
    for (const [tool, args, parameter, allowed] of cases) {
      const r = await http.call(tool, args);
      const label = `${tool} ${JSON.stringify(args)}`;
      expect(r.isError, label).toBe(true);
      expect(r.error, label).toMatchObject({ code: 'INVALID_ARGUMENT', parameter });
      expect(r.text, label).toMatch(new RegExp(`^INVALID_ARGUMENT: ${parameter}`));
      expect(r.text, label).toMatch(allowed);
    }
    // A number where a session id is expected is taken as that id (lenient the way models are,
    // docs/design.md §3.1): it names no session here, so a clear SESSION_NOT_FOUND, never a crash.
    const numeric = await http.call('send', { session: 42, text: 'x' });
    expect(numeric.error).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(numeric.text).toContain('"42"');
    expect(await sessionCount()).toBe(before);
    await fine();
  });

  it('a bad size for open leaves the sizes of existing sessions alone', async () => {
    const { session } = await http.ok('open', { cwd: work, cols: 90, rows: 20 });
    expect((await http.call('open', { cols: 100_000, rows: 0 })).isError).toBe(true);
    const row = ((await http.ok('list')).sessions as { id: string; cols: number; rows: number }[]).find((s) => s.id === session);
    expect(row).toMatchObject({ cols: 90, rows: 20 });
    await http.ok('kill', { session, close: true });
    await fine();
  });
});

describe('hostile open() arguments', () => {
  it('a cwd that does not exist and LD_PRELOAD are refused naming the field; nothing spawned', async () => {
    const before = await sessionCount();
    const cwd = await http.call('open', { cwd: path.join(work, 'no', 'such', 'dir') });
    expect(cwd.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(cwd.text).toMatch(/^INVALID_ARGUMENT: cwd: .* does not exist/);
    const preload = await http.call('open', { env: { LD_PRELOAD: path.join(work, 'evil.so') } });
    expect(preload.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(preload.text).toMatch(/^INVALID_ARGUMENT: env: LD_PRELOAD/);
    const viaExecute = await http.call('execute', { command: 'true', cwd: path.join(work, 'missing') });
    expect(viaExecute.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await sessionCount()).toBe(before);
    await fine();
  });

  it('NODE_OPTIONS is opaque: it reaches only that session, never the hub', async () => {
    const marker = path.join(work, `node-options-${randomBytes(4).toString('hex')}`);
    const script = path.join(work, 'preload.cjs');
    writeFileSync(script, `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    const { session } = await http.ok('open', { cwd: work, env: { NODE_OPTIONS: `--require ${script}` } });
    expect(await http.ok('execute', { session, command: 'echo "$NODE_OPTIONS"' })).toMatchObject({ output: `--require ${script}` });
    // The hub (a node process) opened the session and ran a command: the preload never ran in it.
    expect(existsSync(marker)).toBe(false);
    await http.ok('kill', { session, close: true });
    await fine();
  });

  it('a session name like $(touch …) is a plain label: shown as given, usable as an id, never run', async () => {
    const marker = path.join(tmpdir(), `pwn-${randomBytes(6).toString('hex')}`);
    const name = `$(touch ${marker})`;
    const opened = await http.ok('open', { name, cwd: work });
    expect(await http.ok('execute', { session: name, command: 'echo named' })).toMatchObject({ output: 'named', session: opened.session });
    const listed = await http.call('list');
    expect(listed.text).toContain(name);
    expect((listed.sc.sessions as { id: string; name: string | null }[]).find((s) => s.id === opened.session)).toBeDefined();
    await http.ok('kill', { session: name, close: true });
    expect(existsSync(marker)).toBe(false);
    await fine();
  });
});

describe('a program that cannot run', () => {
  it('open refuses it with SPAWN_FAILED naming program and what to do; nothing is spawned', async () => {
    const before = await sessionCount();
    const plain = path.join(work, 'not-executable.sh');
    writeFileSync(plain, '#!/bin/sh\necho never\n', { mode: 0o644 });
    const cases: [string, RegExp][] = [
      ['/no/such/prog', /not found or is not executable/],
      ['no-such-program-xyz', /not found on PATH/],
      [plain, /not found or is not executable/], // exists, but no execute bit
      [work, /not found or is not executable/], // a directory
    ];
    for (const [program, why] of cases) {
      const r = await http.call('open', { program, cwd: work });
      expect(r.isError, program).toBe(true);
      expect(r.error, program).toMatchObject({ code: 'SPAWN_FAILED' });
      expect(r.text.startsWith(`SPAWN_FAILED: program: "${program}" `), r.text).toBe(true);
      expect(r.text, program).toMatch(why);
      expect(r.text, program).toMatch(/give an absolute path or a program that is installed/);
      expectNoLeak(r.text, hub);
    }
    expect(await sessionCount()).toBe(before);
    // The check looks where the session will: a program on the PATH given in env opens.
    const bin = mkdtempSync(path.join(work, 'bin-'));
    writeFileSync(path.join(bin, 'sb-own-prog'), '#!/bin/sh\necho own-prog-ran\nread line\n', { mode: 0o755 });
    const opened = await http.ok('open', { program: 'sb-own-prog', cwd: work, env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(opened.program).toBe('sb-own-prog');
    expect(await http.ok('read', { session: opened.session, view: 'screen', wait: { pattern: 'own-prog-ran', timeout_ms: 10_000 } })).toMatchObject({
      waited: 'pattern',
    });
    await http.ok('kill', { session: opened.session, close: true });
    await fine();
  });
});

describe('bytes through send', () => {
  /**
   * A raw-mode reader in the session: everything typed until the sentinel goes to `file`, byte
   * for byte (no line discipline: ^C, ^S, ^Q and NUL are data). Resolves once it is listening.
   */
  async function rawReader(session: unknown, file: string): Promise<void> {
    const program = [
      'import os, sys, tty',
      'tty.setraw(0)',
      'print("RE" + "ADY", flush=True)',
      'b = b""',
      'while not b.endswith(b"<<END>>"): b += os.read(0, 65536)',
      'open(sys.argv[1], "wb").write(b[:-7])',
    ].join('\n');
    writeFileSync(path.join(work, 'reader.py'), program);
    const sent = await http.ok('send', {
      session,
      text: `python3 ${path.join(work, 'reader.py')} ${file}`,
      keys: ['enter'],
      wait: { pattern: 'READY', timeout_ms: 10_000 },
    });
    expect(String(sent.screen)).toContain('READY');
  }

  async function readerDone(session: unknown): Promise<void> {
    expect(await http.ok('read', { session, view: 'command', wait: { exit: true, timeout_ms: 20_000 } })).toMatchObject({ waited: 'exit' });
  }

  it('NUL, Ctrl-C, Ctrl-S/Ctrl-Q and a paste arrive in order and whole; ESC[201~ cannot end a paste early', async () => {
    const { session } = await http.ok('open', { cwd: work });
    const file = path.join(work, 'control.bin');
    await rawReader(session, file);
    await http.ok('send', { session, text: 'A\u0000B' });
    await http.ok('send', { session, keys: ['ctrl+c'] });
    await http.ok('send', { session, text: 'C' });
    await http.ok('send', { session, keys: ['ctrl+s', 'ctrl+q'] });
    await http.ok('send', { session, text: 'p1\u001b[201~p2', paste: true });
    await http.ok('send', { session, text: 'Z<<END>>' });
    await readerDone(session);
    // In order, nothing dropped or doubled. A paste is wrapped in bracketed-paste marks, and an end
    // mark inside it is removed (src/core/session/terminalSession.ts) so a paste can never end itself early
    // and have the rest taken as typed keys: the one deliberate change to what the agent sent.
    expect(JSON.stringify(readFileSync(file, 'latin1'))).toBe(JSON.stringify('A\u0000B\u0003C\u0013\u0011\u001b[200~p1p2\u001b[201~Z'));
    expect(await http.ok('execute', { session, command: 'echo still-fine' })).toMatchObject({ output: 'still-fine' });
    await http.ok('kill', { session, close: true });
    await fine();
  });

  it('a 1 MB paste arrives whole (wc -c), and the session is usable after', async () => {
    const { session } = await http.ok('open', { cwd: work });
    const file = path.join(work, 'paste.bin');
    await rawReader(session, file);
    const line = '0123456789abcdefghijklmnopqrstuvwxyz'.repeat(28).slice(0, 1023) + '\n';
    const payload = line.repeat(1024); // 1 MiB, multi-line
    await http.ok('send', { session, text: payload, paste: true });
    await http.ok('send', { session, text: '<<END>>' });
    await readerDone(session);
    const got = readFileSync(file, 'latin1');
    const at = got.indexOf(payload);
    expect(at, `payload not found whole; got ${got.length} bytes`).toBeGreaterThanOrEqual(0);
    expect(got.length - payload.length).toBeLessThanOrEqual(12); // at most the two paste marks
    expect(await http.ok('execute', { session, command: `wc -c < ${file}` })).toMatchObject({ output: String(got.length) });
    await http.ok('kill', { session, close: true });
    await fine();
  }, 40_000);
});

describe('a catastrophic wait pattern', () => {
  it("against 1 MB of output: cut off by the matcher's budget with INVALID_ARGUMENT, not by the wait's timeout; another session answers meanwhile", async () => {
    const { session } = await http.ok('open', { cwd: work });
    await http.ok('execute', { session, command: "head -c 1000000 /dev/zero | tr '\\0' a; echo", max_lines: 5 });
    const [read, other] = await Promise.all([
      http.call('read', { session, view: 'history', wait: { pattern: '(a+)+c', timeout_ms: 5_000 } }),
      http.call('execute', { session: bystander.session, command: 'echo meanwhile' }),
    ]);
    // "In time": the wait's own 5 s would answer `waited: timeout`; this error is the matcher's
    // 100 ms budget cutting the pattern off.
    expect(read.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(read.text).toMatch(/^INVALID_ARGUMENT: wait\.pattern: .*catastrophic/);
    expect(other.sc).toMatchObject({ output: 'meanwhile' });
    await http.ok('kill', { session, close: true });
    await fine();
  });
});

describe('broken text in output', () => {
  it('invalid UTF-8 becomes U+FFFD and a character split across writes is rejoined; no crash', async () => {
    const command =
      "printf 'euro:\\xe2\\x82'; sleep 0.1; printf '\\xac:ok\\n'; printf 'bad:\\xff\\xfe\\xc3:end\\n'; printf 'cut:\\xf0\\x9f'; sleep 0.1; printf '\\x98\\x80.\\n'";
    const r = await http.ok('execute', { command, cwd: work });
    const output = String(r.output);
    expect(output).toContain('euro:€:ok');
    expect(output).toContain('cut:😀.');
    expect(output).toMatch(/bad:\uFFFD+:end/);
    expect(output).not.toContain('\u0000');
    await fine();
  });
});
