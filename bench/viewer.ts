/// <reference lib="dom" />
/**
 * The viewer under a flood, in Chromium (playwright-core, /usr/bin/chromium) against a real
 * `serve`: one window watches an agent's session; a second window (the person's) has that
 * session's tab too and, in front, a terminal of the person's own. The person types one key at
 * a time; the page times each key from its `keydown` to the DOM mutation that shows the echo
 * (what the person sees), and both windows count animation frames. Measured first with the
 * agent's session idle (the baseline, same run), then while it runs `yes`.
 *
 * Diagnostics: `BENCH_VIEWER_SAMPLES=1` prints every key's time to stderr; `BENCH_HUB_ARGS`
 * (space-separated) goes to the hub's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { httpClient, ROOT, sleep, startHub, tool, transcriptBytes } from './hubProcess.js';
import { mib, ms, now, percentile, ratio, type Row } from './stats.js';

const CHROMIUM = '/usr/bin/chromium';
const FPS_WINDOW_MS = 2_000;

interface Bench {
  armed: boolean;
  start: number;
  expect: string;
  result: number;
}

declare global {
  interface Window {
    __bench?: Bench;
  }
}

async function waitForScreen(page: Page, text: string, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    (needle) => (document.querySelector('.term-host:not([hidden]) .xterm-rows')?.textContent ?? '').replace(/\u00a0/g, ' ').includes(needle),
    text,
    { timeout, polling: 'raf' },
  );
}

/** Times keydown → the first DOM change of the terminal rows that shows `expect`. */
async function installTimer(page: Page): Promise<void> {
  await page.evaluate(() => {
    const bench: Bench = { armed: false, start: 0, expect: '', result: -1 };
    window.__bench = bench;
    const text = (): string => (document.querySelector('.term-host:not([hidden]) .xterm-rows')?.textContent ?? '').replace(/\u00a0/g, ' ');
    let observer: MutationObserver | null = null;
    document.addEventListener(
      'keydown',
      () => {
        if (!bench.armed) return;
        bench.armed = false;
        bench.start = performance.now();
        const rows = document.querySelector('.term-host:not([hidden]) .xterm-rows');
        if (!rows) return;
        observer?.disconnect();
        observer = new MutationObserver(() => {
          if (!text().includes(bench.expect)) return;
          bench.result = performance.now() - bench.start;
          observer?.disconnect();
        });
        observer.observe(rows, { subtree: true, childList: true, characterData: true });
      },
      true,
    );
  });
}

/** Frames per second over `windowMs` (requestAnimationFrame callbacks). */
function fps(page: Page, windowMs: number): Promise<number> {
  return page.evaluate(
    (duration) =>
      new Promise<number>((resolve) => {
        let frames = 0;
        const start = performance.now();
        const frame = (): void => {
          frames++;
          const elapsed = performance.now() - start;
          if (elapsed < duration) requestAnimationFrame(frame);
          else resolve(frames / (elapsed / 1000));
        };
        requestAnimationFrame(frame);
      }),
    windowMs,
  );
}

/** `count` keys typed one at a time into the person's terminal; ms from keydown to echo. */
async function keyLatencies(page: Page, count: number, label: string): Promise<number[]> {
  const samples: number[] = [];
  const letters = 'abcdefghijklmnopqrst';
  let batch = 0;
  while (samples.length < count) {
    // A fresh line per batch: `: <label><batch> ` then up to 20 timed letters, then ctrl+u.
    const prefix = `: ${label}${batch++} `;
    await page.keyboard.type(prefix);
    await waitForScreen(page, prefix);
    let typed = prefix;
    for (let i = 0; i < letters.length && samples.length < count; i++) {
      typed += letters[i];
      await page.evaluate((expect) => Object.assign(window.__bench!, { expect, result: -1, armed: true }), typed);
      await page.keyboard.press(letters[i]!);
      await page.waitForFunction(() => (window.__bench?.result ?? -1) >= 0, null, { timeout: 10_000, polling: 20 });
      samples.push(await page.evaluate(() => window.__bench!.result));
    }
    await page.keyboard.press('Control+u');
    await page.waitForFunction(
      (line) => !(document.querySelector('.term-host:not([hidden]) .xterm-rows')?.textContent ?? '').replace(/\u00a0/g, ' ').includes(line),
      typed,
      {
        timeout: 10_000,
        polling: 'raf',
      },
    );
  }
  return samples;
}

async function measure(watcher: Page, person: Page, keys: number, label: string): Promise<{ keys: number[]; watcherFps: number; personFps: number }> {
  const [watcherFps, personFps, latencies] = await Promise.all([fps(watcher, FPS_WINDOW_MS), fps(person, FPS_WINDOW_MS), keyLatencies(person, keys, label)]);
  return { keys: latencies, watcherFps, personFps };
}

export async function viewerUnderFlood(rows: Row[], keys: number): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing`);
  if (!existsSync(path.join(ROOT, 'dist', 'renderer', 'app.js'))) throw new Error('dist/renderer is missing: run `npm run build` first.');
  const hub = await startHub({}, process.env.BENCH_HUB_ARGS?.split(' ').filter(Boolean) ?? []);
  let browser: Browser | undefined;
  const agent = await httpClient(hub, 'bench-viewer-agent');
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const url = `http://127.0.0.1:${hub.port}/?key=${hub.uiKey}`;
    const watcherContext = await browser.newContext({ viewport: { width: 1360, height: 820 }, colorScheme: 'dark' });
    const personContext = await browser.newContext({ viewport: { width: 1360, height: 820 }, colorScheme: 'dark' });
    const watcher = await watcherContext.newPage();
    const person = await personContext.newPage();
    for (const page of [watcher, person]) {
      page.setDefaultTimeout(30_000);
      await page.goto(url);
      await page.locator('.conn.conn-open').waitFor();
    }
    const first = await tool(agent, 'execute', { command: 'echo watched-session' });
    const session = String(first.session);
    await watcher.locator(`.tab[data-tab="${session}"]`).click();
    await waitForScreen(watcher, 'watched-session');
    await person.locator(`.tab[data-tab="${session}"]`).click();
    await waitForScreen(person, 'watched-session');
    // The person's own terminal, in front in their window (the agent's tab stays open behind it).
    await person.locator('#new-terminal').click();
    await person.locator('.tab.user.active').waitFor();
    await person.waitForFunction(
      () => (window as unknown as { switchboard?: { inspect(): { view(): { mode: string } | null } } }).switchboard?.inspect().view()?.mode === 'fit',
    );
    await person.locator('.term-host:not([hidden]) .xterm').click();
    await person.keyboard.type('echo ready-$((6*7))');
    await person.keyboard.press('Enter');
    await waitForScreen(person, 'ready-42');
    await installTimer(person);

    await keyLatencies(person, 5, 'w');
    const quiet = await measure(watcher, person, keys, 'q');

    const started = await tool(agent, 'execute', { session, command: 'yes', timeout_ms: 500, max_lines: 2 });
    if (started.status !== 'running') throw new Error(`yes is not running: ${String(started.status)}`);
    let loud: Awaited<ReturnType<typeof measure>>;
    let closed: Awaited<ReturnType<typeof measure>>;
    let floodRate = 0;
    try {
      await sleep(500);
      const floodFrom = transcriptBytes(hub, session);
      const floodStart = now();
      loud = await measure(watcher, person, keys, 'f');
      floodRate = (transcriptBytes(hub, session) - floodFrom) / ((now() - floodStart) / 1000);
      // Attribution: the same flood with the agent's tab closed in the person's window (their
      // page no longer receives its frames; the hub still parses the flood).
      await person.locator(`.tab[data-tab="${session}"] .tab-close`).click();
      await person.locator(`.tab[data-tab="${session}"]`).waitFor({ state: 'detached' });
      await person.locator('.term-host:not([hidden]) .xterm').click();
      closed = await measure(watcher, person, keys, 'c');
    } finally {
      await tool(agent, 'kill', { session, signal: 'SIGINT' });
    }
    // After the flood the watcher catches up: the next command shows within a bounded time.
    await tool(agent, 'execute', { session, command: 'echo after-flood' });
    await waitForScreen(watcher, 'after-flood', 10_000);

    if (process.env.BENCH_VIEWER_SAMPLES) {
      for (const [name, run] of Object.entries({ quiet, loud, closed })) {
        process.stderr.write(
          `viewer ${name}: ${run.keys.map((value) => value.toFixed(0)).join(' ')} | fps ${run.watcherFps.toFixed(0)}/${run.personFps.toFixed(0)}\n`,
        );
      }
    }
    const fpsRow = (name: string, value: number, base: number): Row => ({
      case: name,
      value: `${value.toFixed(0)} fps`,
      baseline: `${base.toFixed(0)} fps (no flood)`,
      ratio: ratio(value, base),
    });
    rows.push(
      {
        case: `viewer: key → echo on screen in the person's own terminal while an agent tab floods (\`yes\`), p95 (n=${keys})`,
        value: ms(percentile(loud.keys, 95)),
        baseline: `${ms(percentile(quiet.keys, 95))} (no flood)`,
        ratio: ratio(percentile(loud.keys, 95), percentile(quiet.keys, 95)),
      },
      {
        case: '… key → echo, median',
        value: ms(percentile(loud.keys, 50)),
        baseline: `${ms(percentile(quiet.keys, 50))} (no flood)`,
        ratio: ratio(percentile(loud.keys, 50), percentile(quiet.keys, 50)),
      },
      {
        case: "… key → echo p95, same flood, the agent's tab closed in the person's window",
        value: ms(percentile(closed.keys, 95)),
        baseline: `${ms(percentile(quiet.keys, 95))} (no flood)`,
        ratio: ratio(percentile(closed.keys, 95), percentile(quiet.keys, 95)),
      },
      fpsRow('… frames per second, window watching the flood', loud.watcherFps, quiet.watcherFps),
      fpsRow("… frames per second, the person's window (agent's tab open behind theirs)", loud.personFps, quiet.personFps),
      fpsRow("… frames per second, the person's window (agent's tab closed)", closed.personFps, quiet.personFps),
      { case: "… the flood meanwhile (bytes reaching the agent session's transcript)", value: `${mib(floodRate)}/s`, baseline: '—', ratio: '—' },
    );
  } finally {
    await agent.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await hub.stop();
  }
}
