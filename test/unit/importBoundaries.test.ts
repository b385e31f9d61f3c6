/**
 * The one-way import rule of DESIGN §1 is enforced by eslint.config.js. This test lints
 * small in-memory snippets as if they lived in each folder, so the rule cannot silently
 * stop working (a renamed folder, a reordered config object, a rule option typo).
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BOUNDARY_RULES = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: repoRoot });
});

/** Boundary violations ESLint reports for `code` placed at `file` (relative to the repo). */
async function violations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  if (!result) throw new Error(`no lint result for ${file}`);
  const fatal = result.messages.filter((m) => m.fatal || m.ruleId === null);
  if (fatal.length > 0) throw new Error(`${file}: ${fatal.map((m) => m.message).join('; ')}`);
  return result.messages.filter((m) => m.ruleId !== null && BOUNDARY_RULES.has(m.ruleId)).map((m) => m.message);
}

const use = (specifier: string): string => `import * as m from '${specifier}';\nexport const x = m;\n`;

interface Case {
  file: string;
  specifier: string;
}

const forbidden: Case[] = [
  // src/ never imports electron, main/ or renderer/.
  { file: 'src/core/session/terminalSession.ts', specifier: 'electron' },
  { file: 'src/hub/hub.ts', specifier: 'electron' },
  { file: 'src/cli.ts', specifier: 'electron/main' },
  { file: 'src/mcp/tools/execute.ts', specifier: '@electron/remote' },
  { file: 'src/hub/hub.ts', specifier: '../../main/index.js' },
  { file: 'src/core/processes/processes.ts', specifier: '../../renderer/app.js' },
  { file: 'src/ui-protocol.ts', specifier: '../renderer/bridge.js' },
  // Layers inside src/ point one way: cli → hub → mcp → core.
  { file: 'src/core/session/sessionManager.ts', specifier: '../hub/settings.js' },
  { file: 'src/core/session/sessionManager.ts', specifier: '../mcp/server.js' },
  { file: 'src/core/session/sessionManager.ts', specifier: '@modelcontextprotocol/server' },
  { file: 'src/mcp/tools/kill.ts', specifier: '../../hub/hub.js' },
  { file: 'src/hub/hub.ts', specifier: '../cli.js' },
  // src/shim/ is a thin forwarder: no core, no MCP code, no hub internals (DESIGN §4).
  { file: 'src/shim/forwarder.ts', specifier: '../core/sessionManager.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../mcp/server.js' },
  { file: 'src/shim/forwarder.ts', specifier: '@modelcontextprotocol/server' },
  { file: 'src/shim/hubConnection.ts', specifier: '@modelcontextprotocol/client/stdio' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/hub.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/settings.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub' },
  { file: 'src/shim/forwarder.ts', specifier: 'node-pty' },
  { file: 'src/shim/forwarder.ts', specifier: 'electron' },
  { file: 'src/shim/forwarder.ts', specifier: '../cli.js' },
  // ui-protocol is imported by renderer/, so it stays browser-safe and self-contained.
  { file: 'src/ui-protocol.ts', specifier: './core/types.js' },
  { file: 'src/ui-protocol.ts', specifier: 'node:fs' },
  // renderer/ never imports Node, node-pty, electron, src/ (but ui-protocol) or main/.
  { file: 'renderer/app.ts', specifier: 'node:fs' },
  { file: 'renderer/app.ts', specifier: 'fs' },
  { file: 'renderer/app.ts', specifier: 'fs/promises' },
  { file: 'renderer/app.ts', specifier: 'path' },
  { file: 'renderer/app.ts', specifier: 'child_process' },
  { file: 'renderer/app.ts', specifier: 'os' },
  { file: 'renderer/app.ts', specifier: 'net' },
  { file: 'renderer/views/tabs.ts', specifier: 'node:child_process' },
  { file: 'renderer/app.ts', specifier: 'node-pty' },
  { file: 'renderer/app.ts', specifier: 'electron' },
  { file: 'renderer/app.ts', specifier: '../src/core/terminalSession.js' },
  { file: 'renderer/app.ts', specifier: '../src/hub/hub.js' },
  { file: 'renderer/views/tabs.ts', specifier: '../../src/mcp/server.js' },
  { file: 'renderer/app.ts', specifier: '../main/preload.js' },
  // main/ reaches the core only through src/hub/.
  { file: 'main/index.ts', specifier: '../src/core/sessionManager.js' },
  { file: 'main/tray/menu.ts', specifier: '../../src/core/types.js' },
  { file: 'main/index.ts', specifier: '../src/mcp/server.js' },
  { file: 'main/index.ts', specifier: '../src/cli.js' },
  { file: 'main/index.ts', specifier: '../renderer/app.js' },
];

const allowed: Case[] = [
  { file: 'src/core/session/terminalSession.ts', specifier: 'node-pty' },
  { file: 'src/core/session/terminalSession.ts', specifier: 'node:child_process' },
  { file: 'src/core/emulation/emulator.ts', specifier: '@xterm/headless' },
  { file: 'src/core/session/terminalSession.ts', specifier: './commandTracker.js' },
  { file: 'src/mcp/tools/execute.ts', specifier: '../../core/sessionManager.js' },
  { file: 'src/mcp/tools/execute.ts', specifier: '../schemas.js' },
  { file: 'src/mcp/server.ts', specifier: '@modelcontextprotocol/server' },
  { file: 'src/mcp/server.ts', specifier: 'zod' },
  { file: 'src/hub/hub.ts', specifier: '../core/sessionManager.js' },
  { file: 'src/hub/hub.ts', specifier: '../mcp/server.js' },
  { file: 'src/hub/hub.ts', specifier: '../ui-protocol.js' },
  { file: 'src/cli.ts', specifier: './hub/hub.js' },
  { file: 'src/cli.ts', specifier: './mcp/server.js' },
  { file: 'src/mcp/client.ts', specifier: './clientInfo.js' },
  { file: 'src/shim/hubConnection.ts', specifier: '../hub/socketProtocol.js' },
  { file: 'src/shim/hubConnection.ts', specifier: '../hub/hubInfo.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/stateDir.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/logger.js' },
  { file: 'src/shim/forwarder.ts', specifier: './lineReader.js' },
  { file: 'src/shim/hubConnection.ts', specifier: 'node:net' },
  { file: 'src/commands/mcp.ts', specifier: '../shim/forwarder.js' },
  { file: 'src/ui-protocol.ts', specifier: 'zod' },
  { file: 'renderer/app.ts', specifier: '../src/ui-protocol.js' },
  { file: 'renderer/views/tabs.ts', specifier: '../../src/ui-protocol.js' },
  { file: 'renderer/app.ts', specifier: '@xterm/xterm' },
  { file: 'renderer/app.ts', specifier: './bridge.js' },
  { file: 'main/index.ts', specifier: 'electron' },
  { file: 'main/index.ts', specifier: '../src/hub/hub.js' },
  { file: 'main/index.ts', specifier: '../src/ui-protocol.js' },
  { file: 'main/index.ts', specifier: 'node:path' },
  { file: 'test/unit/anything.test.ts', specifier: '../../src/core/sessionManager.js' },
  { file: 'bench/run.ts', specifier: 'node-pty' },
];

describe('one-way import rule (DESIGN §1)', () => {
  it.each(forbidden)('forbids $specifier in $file', async ({ file, specifier }) => {
    const messages = await violations(file, use(specifier));
    // A specifier can break more than one restriction; each is reported.
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).toContain('DESIGN §1');
  });

  it.each(allowed)('allows $specifier in $file', async ({ file, specifier }) => {
    expect(await violations(file, use(specifier))).toEqual([]);
  });

  it('catches every static form: type-only imports, re-exports and import = require', async () => {
    const file = 'src/core/session/terminalSession.ts';
    expect(await violations(file, `import type { App } from 'electron';\nexport type A = App;\n`)).toHaveLength(1);
    expect(await violations(file, `export { app } from 'electron';\n`)).toHaveLength(1);
    expect(await violations(file, `export * from 'electron';\n`)).toHaveLength(1);
    expect(await violations(file, `import electron = require('electron');\nexport const e = electron;\n`)).toHaveLength(
      1,
    );
  });

  it('catches dynamic import() and require() with a literal specifier', async () => {
    expect(await violations('src/hub/hub.ts', `export const e = await import('electron');\n`)).toHaveLength(1);
    expect(await violations('renderer/app.ts', `export const fs = await import('node:fs');\n`)).toHaveLength(1);
    expect(await violations('main/index.ts', `export const m = import('../src/core/sessionManager.js');\n`)).toHaveLength(
      1,
    );
    expect(
      await violations('renderer/app.ts', `export const cp = require('child_process');\n`),
    ).toHaveLength(1);
    expect(await violations('src/shim/forwarder.ts', `export const h = await import('../hub/hub.js');\n`)).toHaveLength(1);
    expect(await violations('src/shim/forwarder.ts', `export const c = require('../core/terminalSession.js');\n`)).toHaveLength(1);
    expect(await violations('renderer/app.ts', `export const p = import('../src/ui-protocol.js');\n`)).toEqual([]);
  });

  it('checks JavaScript files too', async () => {
    expect(await violations('renderer/app.js', use('node:os'))).toHaveLength(1);
    expect(await violations('src/hub/hub.mjs', use('electron'))).toHaveLength(1);
  });
});
