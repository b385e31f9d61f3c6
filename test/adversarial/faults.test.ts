/**
 * The adversarial review, "Faults": a shell killed under a running command, programs that ignore signals or
 * escape their session, and cancellations that name nothing. One hub with a short kill wait
 * (SWITCHBOARD_KILL_WAIT_MS=500). Hub restarts, shim faults and client disconnects are covered
 * in test/integration (see README.md).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubProcess } from '../integration/helpers/hubProcess.js';
import { expectCleanLog, expectHubFine, expectNoLeak, RawHttp, RawShim, sessionPids, startIsolatedHub, until } from './helpers.js';
import { within } from '../integration/helpers/within.js';

let hub: HubProcess;
let stopHub: () => Promise<string>;
let http: RawHttp;
let work: string;
/** A session opened before any case, checked after each one. */
let bystander: Record<string, unknown>;

beforeAll(async () => {
  ({ hub, cleanup: stopHub } = await startIsolatedHub({ SWITCHBOARD_KILL_WAIT_MS: '500' }));
  http = await new RawHttp(hub).initialize('faults');
  work = mkdtempSync(path.join(tmpdir(), 'sb-adv-fault-'));
  bystander = await http.ok('open', { cwd: work, name: 'bystander' });
});

afterAll(async () => {
  await http?.close();
  if (hub) {
    const stderr = await stopHub();
    expectCleanLog(stderr, hub);
    expect(stderr).not.toMatch(/EIO/);
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Children of the hub that are zombies (exited, never reaped). */
function hubZombies(): number[] {
  const zombies: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === hub.pid) zombies.push(Number(entry));
    } catch {
      // gone
    }
  }
  return zombies;
}

async function fine(): Promise<void> {
  await expectHubFine(hub);
  // No other session was affected: the bystander shell opened first still answers, same pid.
  expect(await http.ok('execute', { session: bystander.session, command: 'echo bystander-ok' })).toMatchObject({ output: 'bystander-ok' });
  const row = ((await http.ok('list')).sessions as { id: string; pid: number; state: string }[]).find((s) => s.id === bystander.session);
  expect(row).toMatchObject({ pid: bystander.pid, state: 'idle' });
  for (const body of http.bodies) expectNoLeak(body, hub);
}

describe('the shell dies under a running command', () => {
  it('kill -9 of the shell: exited, a waiting read is woken by the exit (not its timeout), the last output stays readable', async () => {
    const { session, pid } = await http.ok('open', { cwd: work });
    const running = await http.ok('execute', { session, command: 'echo last-words-before-kill; sleep 100', timeout_ms: 1_000 });
    expect(running).toMatchObject({ status: 'running' });
    expect(String(running.output)).toContain('last-words-before-kill');
    // The waiting read goes through a shim: one connection's messages are taken in order, so
    // once the `list` sent after it is answered, the read is in the hub (HTTP has no order).
    const shim = await new RawShim(hub).initialize('faults-waiter');
    const waiting = shim.ok('read', { session, view: 'command', wait: { exit: true, timeout_ms: 10_000 } });
    await shim.ok('list');
    process.kill(Number(pid), 'SIGKILL');
    // Woken by the shell's death: an answer before its own 10 s that is not `waited: timeout`.
    const read = await waiting;
    shim.assertStdoutClean();
    for (const line of shim.lines) expectNoLeak(line, hub);
    await shim.close();
    expect(read).toMatchObject({ state: 'exited' });
    expect(read.waited).not.toBe('timeout');
    const history = await http.ok('read', { session, view: 'history' });
    expect(String(history.content)).toContain('last-words-before-kill');
    const row = ((await http.ok('list', { include_closed: true })).sessions as { id: string; state: string }[]).find((s) => s.id === session);
    expect(row?.state).toBe('exited');
    // Calls on the dead session are a clear SESSION_EXITED, never EIO or a crash.
    const after = await http.call('execute', { session, command: 'echo again' });
    expect(after.isError).toBe(true);
    expect(after.error?.code).toBe('SESSION_EXITED');
    expect(after.text).not.toMatch(/EIO/);
    await fine();
  });
});

describe('programs that resist', () => {
  it("trap '' TERM HUP INT; sleep 1e9 → kill ends it by escalation (SIGKILL after the 500 ms waits), no zombie", async () => {
    const { session } = await http.ok('open', { cwd: work });
    expect(await http.ok('execute', { session, command: "trap '' TERM HUP INT; sleep 1e9", timeout_ms: 500 })).toMatchObject({ status: 'running' });
    // The answer comes after INT and TERM each waited SWITCHBOARD_KILL_WAIT_MS and SIGKILL ended it;
    // the bound only turns a kill that never answers into a failure that says so.
    const killed = await within(http.ok('kill', { session }), 15_000, 'kill to end the job');
    expect(killed.ended_by).toBe('SIGKILL');
    expect(sessionPids(String(session)).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'))).not.toContainEqual(expect.stringContaining('sleep'));
    // The shell (which ignores those signals now too) is still usable, then closed for good.
    expect(await http.ok('execute', { session, command: 'echo survived' })).toMatchObject({ output: 'survived' });
    expect(await within(http.ok('kill', { session, close: true }), 15_000, 'kill close to end the session')).toMatchObject({ state: 'exited' });
    await until(() => sessionPids(String(session)).length === 0 && hubZombies().length === 0, 3_000, 'no process and no zombie left');
    await fine();
  }, 20_000);

  it('sleep &, nohup, setsid and a double-forked daemon: nothing survives kill with close', async () => {
    const { session } = await http.ok('open', { cwd: work });
    const command = [
      'sleep 1001 &',
      'nohup sleep 1002 >/dev/null 2>&1 &',
      'setsid sleep 1003 >/dev/null 2>&1 &',
      "(trap '' HUP; sleep 1004 &) &",
      'bash -c \'setsid bash -c "sleep 1005 & " &\' &',
      'echo spawned',
    ].join('\n');
    expect(await http.ok('execute', { session, command })).toMatchObject({ status: 'completed' });
    const sleepers = (): number =>
      sessionPids(String(session)).filter((pid) => {
        try {
          return /^sleep\x00100[1-5]\x00$/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
        } catch {
          return false;
        }
      }).length;
    await until(() => sleepers() === 5, 5_000, 'five sleepers in the session');
    expect(await http.ok('kill', { session, close: true })).toMatchObject({ state: 'exited' });
    await until(() => sessionPids(String(session)).length === 0, 5_000, `nothing left of session ${String(session)}`);
    await until(() => hubZombies().length === 0, 2_000, 'no zombie children of the hub');
    await fine();
  }, 20_000);
});

describe('cancellations that name nothing', () => {
  it('over HTTP, cancelling an unknown or finished request is ignored', async () => {
    const done = await http.request('tools/call', { name: 'execute', arguments: { command: 'echo done', cwd: work } });
    for (const requestId of [987_654, 'never-sent', done.id]) {
      const answer = await http.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'test' } }));
      expect(answer.status, String(requestId)).toBe(202);
    }
    expect(await http.ok('execute', { command: 'echo after-cancel', cwd: work })).toMatchObject({ output: 'after-cancel' });
    await fine();
  });

  it('through the shim, the same: no answer to the notification, the next call answered', async () => {
    const shim = await new RawShim(hub).initialize('faults-shim');
    try {
      const done = await shim.request('ping');
      const linesBefore = shim.lines.length;
      for (const requestId of [987_654, 'never-sent', done.id]) {
        shim.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }));
      }
      expect(await shim.ok('execute', { command: 'echo after-cancel', cwd: work })).toMatchObject({ output: 'after-cancel' });
      // Only the execute's answer: nothing answers a notification. (The session it opened may be
      // announced, notifications/resources/list_changed, which carries no id.)
      const answers = shim.lines.slice(linesBefore).filter((line) => 'id' in (JSON.parse(line) as object));
      expect(answers).toHaveLength(1);
      shim.assertStdoutClean();
    } finally {
      await shim.close();
    }
    await fine();
  });
});
