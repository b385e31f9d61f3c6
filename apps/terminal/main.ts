/**
 * The terminal app's entry (docs/design.md §3.8): a read-only live view of the session an `open`
 * or `execute` call used, drawn by hosts with MCP Apps in their sandboxed frame.
 *
 * The host tells the view which call it shows (`ui/initialize`'s tool info, then the call's
 * arguments and result); the view follows that session through the app-only tool
 * `screen_updates`, shows its name and state, and asks the host to open the session in
 * Switchboard's window (`ui/open-link`). It reaches nothing itself: no fetch, no socket, no
 * outside file (the frame's `connect-src 'none'` holds).
 */
import type { McpUiHostContext, McpUiInitializeResult } from '@modelcontextprotocol/ext-apps';
import type { TerminalThemeName } from '../../src/terminalThemes.js';
import { HostChannel } from './hostChannel.js';
import { ScreenPoller, type ScreenAnswer } from './screenPoller.js';
import { TerminalPane } from './terminalPane.js';
import { TitleBar } from './titleBar.js';

declare const APP_VERSION: string;

/** The MCP Apps revision this view speaks. */
const APPS_PROTOCOL_VERSION = '2026-01-26';

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}

const host = new HostChannel();
const bar = new TitleBar(document.body, (address) => void openInSwitchboard(address));
let theme: TerminalThemeName = matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
document.documentElement.dataset.theme = theme;
const pane = new TerminalPane(byId('terminal'), theme);

let poller: ScreenPoller | undefined;
let torn = false;
let hostOpensLinks = false;
/** The tool whose result this view shows (`open` or `execute`), when the host says. */
let toolName: string | undefined;
/** Something of the session is on the terminal (a screen from the hub). */
let drawn = false;
/** What the call's result says, shown when there is no live view. */
let resultText: string | undefined;

host.onNotification('ui/notifications/tool-input', (params) => {
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  // `execute` into a named session: follow it while the command runs, before the result.
  if (toolName === 'execute' && typeof args.session === 'string' && args.session !== '') follow(args.session);
});
host.onNotification('ui/notifications/tool-result', (params) => showResult(params as ToolResult));
host.onNotification('ui/notifications/tool-cancelled', () => bar.setNote('The call was cancelled.'));
host.onNotification('ui/notifications/host-context-changed', (params) => applyContext(params as McpUiHostContext));
host.onRequest('ui/resource-teardown', () => {
  torn = true;
  poller?.stop('');
  return {};
});

void start();

async function start(): Promise<void> {
  let init: McpUiInitializeResult;
  try {
    init = await host.request<McpUiInitializeResult>('ui/initialize', {
      appInfo: { name: 'switchboard-terminal', version: APP_VERSION },
      appCapabilities: { availableDisplayModes: ['inline'] },
      protocolVersion: APPS_PROTOCOL_VERSION,
    });
  } catch (error) {
    bar.setNote(`The host did not start this view: ${(error as Error).message}`, 'warn');
    return;
  }
  hostOpensLinks = init.hostCapabilities?.openLinks !== undefined;
  toolName = init.hostContext?.toolInfo?.tool?.name;
  applyContext(init.hostContext ?? {});
  host.notify('ui/notifications/initialized');
  reportSize();
}

function showResult(result: ToolResult): void {
  const structured = result.structuredContent ?? {};
  const text = result.content?.find((item) => item.type === 'text')?.text;
  resultText = typeof structured.output === 'string' ? structured.output : text;
  const session = typeof structured.session === 'string' ? structured.session : undefined;
  if (result.isError || !session) {
    bar.setNote(text ? text.split('\n')[0]! : 'This call opened no session.', 'warn');
    if (!poller) void pane.showText(text ?? '');
    return;
  }
  follow(session);
}

function follow(session: string): void {
  if (torn) return;
  // A poller that gave up before the result (the session not open yet) starts again from it.
  if (!poller || poller.stopped) poller = new ScreenPoller(host, session, { answer, stopped });
  poller.watch(session);
}

async function answer(update: ScreenAnswer): Promise<void> {
  bar.show(update);
  if (update.ui_url !== undefined) bar.setAddress(update.ui_url, hostOpensLinks);
  bar.setNote(update.state === 'awaiting_input' ? `It waits for ${update.input_kind === 'secret' ? 'a password' : 'input'}: answer it in Switchboard.` : '');
  if (update.screen !== undefined) {
    await pane.showScreen(update.screen, update.cols ?? 80, update.rows ?? 24);
    drawn = true;
  } else if (update.output !== undefined) {
    await pane.append(update.output);
  }
}

function stopped(why: string, unavailable: boolean): void {
  if (why) bar.setNote(why, unavailable ? 'warn' : 'info');
  // No live view at all: the result's own text is still worth showing.
  if (unavailable && !drawn && resultText) void pane.showText(resultText);
}

async function openInSwitchboard(address: string): Promise<void> {
  try {
    await host.request('ui/open-link', { url: address });
  } catch (error) {
    bar.setNote(`The host did not open the link: ${(error as Error).message}`, 'warn');
  }
}

function applyContext(context: Partial<McpUiHostContext>): void {
  if (context.theme === 'light' || context.theme === 'dark') {
    theme = context.theme;
    document.documentElement.dataset.theme = theme;
    pane.setTheme(theme);
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (typeof value === 'string') document.documentElement.style.setProperty(name, value);
  }
}

/** Hosts that size the frame to its content learn the view's size as it changes. */
function reportSize(): void {
  let last = '';
  let frame = 0;
  new ResizeObserver(() => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const rect = document.body.getBoundingClientRect();
      const size = { width: Math.ceil(rect.width), height: Math.ceil(rect.height) };
      const key = `${size.width}x${size.height}`;
      if (key === last) return;
      last = key;
      host.notify('ui/notifications/size-changed', size);
    });
  }).observe(document.body);
}

function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the view's page lacks #${id}`);
  return element;
}
