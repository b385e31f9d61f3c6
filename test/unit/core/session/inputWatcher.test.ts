/**
 * The watch for a job waiting on the terminal (src/core/session/inputWatcher.ts, docs/design.md
 * §2.6), on fake timers with a stand-in probe: when it probes (quietMs after the last output or
 * probe, never back to back, never two at once, never for an idle shell or a closed session),
 * what a probe's answer does (awaiting, its kind, events in order), and what ends it (output,
 * typing, the exit; for a full-screen program, a probe after its redraw). That a real blocked `read` is found is the integration tests' part
 * (interactive.test.ts, "awaiting input").
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InputProbe } from '../../../../src/core/processes/inputProbe.js';
import { InputWatcher } from '../../../../src/core/session/inputWatcher.js';

const QUIET_MS = 500;

/** The session as the watcher sees it, settable by the test, and what the watcher did. */
interface Harness {
  watcher: InputWatcher;
  session: { lastOutputAt: number; closed: boolean; jobRunning: boolean; fullScreen: boolean; typing: boolean };
  /** What the next probe answers (a promise: the test may hold it). */
  answer: () => Promise<InputProbe | undefined>;
  probes: number;
  events: string[];
}

let harness: Harness;
const watchers: InputWatcher[] = [];

function watch(): Harness {
  const h: Harness = {
    watcher: undefined as unknown as InputWatcher,
    session: { lastOutputAt: Date.now(), closed: false, jobRunning: true, fullScreen: false, typing: false },
    answer: async () => ({ reading: false, secret: false }),
    probes: 0,
    events: [],
  };
  h.watcher = new InputWatcher({
    quietMs: QUIET_MS,
    lastOutputAt: () => h.session.lastOutputAt,
    closed: () => h.session.closed,
    jobRunning: () => h.session.jobRunning,
    fullScreen: () => h.session.fullScreen,
    typing: () => h.session.typing,
    probe: () => {
      h.probes++;
      return h.answer();
    },
    onDidChange: () => h.events.push(`change (awaiting: ${h.watcher.awaiting !== null})`),
  });
  h.watcher.onDidAwaitInput(({ secret }) => h.events.push(`await input (secret: ${secret})`));
  watchers.push(h.watcher);
  return h;
}

/** Probes from now on wait for an answer: the returned function gives the latest one its answer. */
function holdProbes(): (probe: InputProbe) => void {
  let release: ((probe: InputProbe) => void) | undefined;
  harness.answer = () => new Promise((resolve) => (release = resolve));
  return (probe) => {
    if (!release) throw new Error('no probe is waiting for an answer');
    release(probe);
  };
}

/** Output from the PTY now, as the session reports it to the watcher. */
function output(): void {
  harness.session.lastOutputAt = Date.now();
  harness.watcher.noteOutput();
}

beforeEach(() => {
  vi.useFakeTimers();
  harness = watch();
});
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.dispose();
  vi.useRealTimers();
});

describe('InputWatcher: when it probes', () => {
  it('probes once output has been quiet for quietMs, counted from the last output', async () => {
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(300);
    output(); // the timer already armed is not moved; at its end it sees the output and waits on
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(harness.probes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.probes).toBe(1);
  });

  it('looks sooner once the program enters the alternate screen, though the timer was armed for quietMs', async () => {
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(50);
    harness.session.fullScreen = true; // vim drew its screen
    output();
    await vi.advanceTimersByTimeAsync(299);
    expect(harness.probes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.probes).toBe(1);
  });

  it('probes a quiet job that is not reading again every quietMs, not back to back', async () => {
    let probed = 0;
    harness.watcher.onDidProbeInput(() => probed++);
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(1);
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(harness.probes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.probes).toBe(2);
    await vi.advanceTimersByTimeAsync(8 * QUIET_MS);
    expect(harness.probes).toBe(10);
    expect(probed).toBe(10);
    expect(harness.watcher.awaiting).toBeNull();
  });

  it('never runs two probes at once: a probe due while one is out waits for it', async () => {
    const release = holdProbes();
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(1);
    harness.watcher.schedule(); // e.g. the person typed meanwhile
    await vi.advanceTimersByTimeAsync(5 * QUIET_MS);
    expect(harness.probes).toBe(1);
    release({ reading: false, secret: false });
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(2); // watched again, quietMs after the slow probe ended
  });

  it('does not probe when no job runs (a shell at its prompt), nor once the session closed', async () => {
    harness.session.jobRunning = false;
    harness.watcher.schedule();
    output();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(harness.probes).toBe(0);

    harness.session.jobRunning = true;
    harness.session.closed = true;
    harness.watcher.schedule();
    output();
    expect(vi.getTimerCount()).toBe(0); // not even a timer is armed
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(harness.probes).toBe(0);
  });

  it('holds no timer once the session exited', async () => {
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    harness.session.closed = true;
    harness.session.jobRunning = false;
    harness.watcher.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops probing at the exit, and forgets the job was waiting without telling', async () => {
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).not.toBeNull();
    harness.events.length = 0;
    harness.session.closed = true;
    harness.session.jobRunning = false;
    harness.watcher.stop();
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual([]); // the exit itself says the state changed
    harness.session.closed = false; // even a stray timer of before would find nothing armed
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(harness.probes).toBe(1);
  });
});

describe('InputWatcher: what a probe finds', () => {
  it('a blocked read makes the job await input, with echo off a secret: told once, then the change', async () => {
    harness.answer = async () => ({ reading: true, secret: true });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).toMatchObject({ secret: true, since: Date.now() });
    expect(harness.events).toEqual(['await input (secret: true)', 'change (awaiting: true)']);
    // Awaiting: no more probes until something moves.
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(harness.probes).toBe(1);
  });

  it('output ends the wait and watches the job again, quietMs after that output', async () => {
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    harness.events.length = 0;
    await vi.advanceTimersByTimeAsync(100);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    output(); // 100 ms after the probe: the next one is quietMs after this output, not after that probe
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual(['change (awaiting: false)']);
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(harness.probes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.probes).toBe(2);
    expect(timers).toHaveBeenCalledTimes(1); // one wake-up for that probe, no polling towards it
    timers.mockRestore();
    expect(harness.events).toEqual(['change (awaiting: false)', 'await input (secret: false)', 'change (awaiting: true)']);
  });

  it('a read found while output came during the probe does not count', async () => {
    const release = holdProbes();
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    harness.session.lastOutputAt = Date.now(); // output arrived (its own noteOutput finds no timer armed)
    release({ reading: true, secret: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual([]);
  });

  it('typing ends the wait, and the next probe comes quietMs after the typing, though output was quiet longer', async () => {
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).not.toBeNull();
    await vi.advanceTimersByTimeAsync(QUIET_MS * 3); // output has been quiet long since
    harness.watcher.noteInput(); // vim's `:wq` goes in; vim is still in its read until scheduled
    harness.watcher.schedule();
    expect(harness.watcher.awaiting).toBeNull();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(harness.probes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.probes).toBe(2);
  });

  it('a job still taking typed input (a long paste the terminal takes as it reads) is not probed; quietMs after the last of it went in, it is', async () => {
    harness.answer = async () => ({ reading: true, secret: false });
    harness.session.typing = true;
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS * 4); // between two of its reads it sits in read(): no probe may ask then
    expect(harness.probes).toBe(0);
    expect(harness.watcher.awaiting).toBeNull();
    harness.session.typing = false;
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(1);
    expect(harness.watcher.awaiting).not.toBeNull();
  });

  it('a read found while typed input was still going in does not count', async () => {
    const release = holdProbes();
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(1);
    harness.session.typing = true;
    release({ reading: true, secret: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual([]);
  });

  it('a read found while keys were typed during the probe does not count', async () => {
    const release = holdProbes();
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(1);
    harness.watcher.noteInput();
    release({ reading: true, secret: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual([]);
  });

  it('a read found by a probe slower than quietMs, with output during it, does not count; the next probe decides', async () => {
    const release = holdProbes();
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(1);
    output(); // e.g. the shell repainting its prompt while a loaded machine answers the probe
    await vi.advanceTimersByTimeAsync(QUIET_MS + 200); // quiet again for longer than quietMs
    release({ reading: true, secret: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual([]);
    // The next probe, with no output during it, is believed.
    harness.answer = async () => ({ reading: true, secret: false });
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(2);
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'line' });
  });

  it('a read found after the command ended (no job runs any more) does not count', async () => {
    const release = holdProbes();
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    harness.session.jobRunning = false; // the shell is back at its prompt, reading the terminal
    release({ reading: true, secret: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.watcher.awaiting).toBeNull();
  });

  it('nothing to probe (no foreground group, no terminal path) is not a read', async () => {
    harness.answer = async () => undefined;
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).toBeNull();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(2); // and it keeps watching
  });

  it('setting the same state again tells nobody', () => {
    harness.watcher.set({ secret: false });
    harness.watcher.set({ secret: true });
    harness.watcher.set(null);
    harness.watcher.set(null);
    expect(harness.events).toEqual(['await input (secret: false)', 'change (awaiting: true)', 'change (awaiting: false)']);
  });
});

describe('InputWatcher: the kind of input, and full-screen programs', () => {
  it('a line read is `line`, echo off in canonical mode `secret`, and the event says which', async () => {
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'line', secret: false });
    output();
    harness.answer = async () => ({ reading: true, secret: true });
    const kinds: string[] = [];
    harness.watcher.onDidAwaitInput(({ kind }) => kinds.push(kind));
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'secret', secret: true });
    expect(kinds).toEqual(['secret']);
  });

  it('in the alternate screen a wait is `screen`, after a shorter quiet', async () => {
    harness.session.fullScreen = true;
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(299);
    expect(harness.probes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.probes).toBe(1);
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'screen', secret: false });
  });

  it('a password prompt in the alternate screen is still `secret`', async () => {
    harness.session.fullScreen = true;
    harness.answer = async () => ({ reading: true, secret: true });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'secret', secret: true });
  });

  it("a full-screen program's redraws do not end its wait; a probe after them that finds no wait does", async () => {
    harness.session.fullScreen = true;
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    const since = harness.watcher.awaiting?.since;
    harness.events.length = 0;
    await vi.advanceTimersByTimeAsync(1_000);
    output(); // htop redraws its meters
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'screen', since });
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.probes).toBe(2); // checked on after the redraw: still waiting, nothing said
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'screen', since });
    expect(harness.events).toEqual([]);
    harness.answer = async () => ({ reading: false, secret: false }); // it runs something now
    output();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(harness.watcher.awaiting).toBeNull();
    expect(harness.events).toEqual(['change (awaiting: false)']);
  });

  it('leaving the alternate screen (output) ends a screen wait at once', async () => {
    harness.session.fullScreen = true;
    harness.answer = async () => ({ reading: true, secret: false });
    harness.watcher.schedule();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    harness.session.fullScreen = false;
    output();
    expect(harness.watcher.awaiting).toBeNull();
  });

  it('probeNow asks at once, without the quiet period, and holds what it finds', async () => {
    harness.answer = async () => ({ reading: true, secret: false });
    output();
    expect(await harness.watcher.probeNow()).toMatchObject({ kind: 'line' });
    expect(harness.probes).toBe(1);
    expect(harness.watcher.awaiting).toMatchObject({ kind: 'line' });
    expect(harness.events).toEqual(['await input (secret: false)', 'change (awaiting: true)']);
    expect(await harness.watcher.probeNow()).toMatchObject({ kind: 'line' });
    expect(harness.probes).toBe(1); // already known: not asked again
  });

  it('probeNow finds nothing when no job runs or the job does not wait', async () => {
    harness.answer = async () => ({ reading: false, secret: false });
    expect(await harness.watcher.probeNow()).toBeNull();
    harness.session.jobRunning = false;
    harness.answer = async () => ({ reading: true, secret: false });
    expect(await harness.watcher.probeNow()).toBeNull();
    expect(harness.probes).toBe(1);
    expect(harness.watcher.awaiting).toBeNull();
  });
});
