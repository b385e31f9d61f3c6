/**
 * The person's "Save screenshot" over `/ws` (docs/design.md §5.2, §4.6): a real `switchboard
 * serve`, the official MCP client over HTTP as the agent, a `ws` client speaking
 * src/ui-protocol/ as the page does. The UI's `screenshot` answers with the very PNG the
 * agent's `screenshot` tool returns for the same screen, in the theme asked for; its pixels show
 * the session's colours; an unknown session gets the protocol's error; the person's action is
 * audited. Runs against dist/: `npm run build` first.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubMessage } from '../../src/ui-protocol/index.js';
import { SCREENSHOT_GEOMETRY, screenshotSize } from '../../src/hub/screenshot/pngRenderer.js';
import { DARK_TERMINAL, LIGHT_TERMINAL } from '../../src/terminalThemes.js';
import { removeHome, startHub, type HubProcess } from './helpers/hubProcess.js';
import { whenFile } from './helpers/fileWatch.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

type Taken = Extract<HubMessage, { type: 'screenshotTaken' }>;
type Failed = Extract<HubMessage, { type: 'error' }>;

let hub: HubProcess;
let agent: Client;
let ui: UiClient;
let session: string;
let nextReq = 1;

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return toolAnswer(await agent.callTool({ name, arguments: args }));
}

/** The UI's `screenshot`, answered by `screenshotTaken` or `error` (paired by `req`). */
async function uiScreenshot(message: Record<string, unknown>): Promise<Taken | Failed> {
  const req = nextReq++;
  const from = ui.mark();
  ui.send({ type: 'screenshot', ...message, req });
  return ui.waitFor<Taken | Failed>((m) => (m.type === 'screenshotTaken' || m.type === 'error') && m.req === req, 'the answer to screenshot', {
    from,
    timeoutMs: 20_000,
  });
}

/** The agent's `screenshot` tool's PNG. */
async function toolPng(theme: 'dark' | 'light'): Promise<Buffer> {
  const answer = await call('screenshot', { session, theme });
  expect(answer.isError, answer.text).toBe(false);
  const image = answer.content.find((item) => item.type === 'image');
  return Buffer.from(image?.data ?? '', 'base64');
}

/** The colour at the centre of cell (col, row) of a screenshot. */
async function pixelAt(png: Buffer, col: number, row: number): Promise<string> {
  const image = await loadImage(png);
  const ctx = createCanvas(image.width, image.height).getContext('2d');
  ctx.drawImage(image, 0, 0);
  const { cellWidth, cellHeight, padding } = SCREENSHOT_GEOMETRY;
  const x = padding + col * cellWidth + Math.floor(cellWidth / 2);
  const y = padding + row * cellHeight + Math.floor(cellHeight / 2);
  const [r, g, b] = ctx.getImageData(x, y, 1, 1).data;
  return `#${[r!, g!, b!].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

beforeAll(async () => {
  hub = await startHub();
  agent = new Client({ name: 'ui-screenshot-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
  // A red block after MARK on a line of its own (the command line shows the escapes as text).
  const ran = await call('execute', { command: "printf 'MARK\\033[41m  \\033[0m \\033[1;32mgreen\\033[0m\\n'; ls --color=always /" });
  expect(ran.isError, ran.text).toBe(false);
  session = String(ran.sc.session);
  ui = await UiClient.connect(hub, await personCookie(hub));
}, 30_000);

afterAll(async () => {
  ui?.close();
  await agent?.close();
  if (hub) {
    expect(await hub.stop()).toBe(0);
    removeHome(hub.home);
  }
});

describe('the UI’s screenshot of a session', () => {
  it('is the screenshot tool’s own PNG for the same screen, in the theme asked for, and shows the session’s colours', async () => {
    const screen = await call('read', { session, view: 'screen' });
    const rows = String(screen.sc.content ?? screen.text).split('\n');
    const markRow = rows.findIndex((line) => line.startsWith('MARK'));
    expect(markRow, `a row starting with MARK in:\n${rows.join('\n')}`).toBeGreaterThanOrEqual(0);
    const listed = (await call('list', {})).sc.sessions as { id: string; cols: number; rows: number }[];
    const size = listed.find((entry) => entry.id === session)!;

    for (const theme of ['dark', 'light'] as const) {
      const answer = await uiScreenshot({ session, theme });
      expect(answer.type, JSON.stringify(answer)).toBe('screenshotTaken');
      const taken = answer as Taken;
      const png = Buffer.from(taken.png, 'base64');
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect({ width: taken.width, height: taken.height }).toEqual(screenshotSize(size.cols, size.rows));
      expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({ width: taken.width, height: taken.height });
      expect(taken.session).toBe(session);
      // The same renderer on the same screen: the very bytes the agent gets.
      expect(png.equals(await toolPng(theme)), `the UI's ${theme} PNG equals the tool's`).toBe(true);
      const colors = theme === 'dark' ? DARK_TERMINAL : LIGHT_TERMINAL;
      expect(await pixelAt(png, 4, markRow)).toBe(colors.red);
      expect(await pixelAt(png, size.cols - 1, size.rows - 1)).toBe(colors.background);
    }
    // Without a theme, the tool's default (dark).
    const plain = (await uiScreenshot({ session })) as Taken;
    expect(Buffer.from(plain.png, 'base64').equals(await toolPng('dark'))).toBe(true);
    expect(DARK_TERMINAL.background).not.toBe(LIGHT_TERMINAL.background);
  });

  it('an unknown session gets SESSION_NOT_FOUND, a theme it does not know BAD_MESSAGE, both paired by req', async () => {
    const unknown = await uiScreenshot({ session: 'no-such-session' });
    expect(unknown).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND', for: 'screenshot', session: 'no-such-session' });
    const badTheme = await uiScreenshot({ session, theme: 'sepia' });
    expect(badTheme).toMatchObject({ type: 'error', code: 'BAD_MESSAGE', for: 'screenshot' });
    expect((badTheme as Failed).message).toContain('theme');
    // The connection carries on.
    expect((await uiScreenshot({ session })).type).toBe('screenshotTaken');
  });

  it('writes the person’s screenshot to audit.jsonl', async () => {
    const file = path.join(hub.home, 'audit.jsonl');
    const screenshots = (): Record<string, unknown>[] =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.actor === 'person' && entry.action === 'screenshot');
    await whenFile(file, () => screenshots().length >= 4, 'four person screenshots in audit.jsonl');
    expect(screenshots()[0]).toEqual({ time: expect.any(String), actor: 'person', action: 'screenshot', channel: 'window', session });
  });
});
