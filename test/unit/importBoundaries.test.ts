/**
 * The one-way import rule of docs/design.md §1.2 is enforced by eslint.config.js
 * (eslint-plugin-boundaries on resolved paths). This test lints small snippets as if they
 * were files at real places in the tree (ESLint's `filePath`), so their imports resolve
 * against the real files, and proves that every restriction fires with its message and that
 * the allowed imports pass. A renamed folder, a reordered config object or a broken resolver
 * fails here rather than silently letting everything through. That the whole tree keeps the
 * rule (every file classified, no import refused) is `npm run lint:code`, which `npm test` runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYER_RULES = new Set(['boundaries/dependencies', 'boundaries/no-unknown-files']);

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: repoRoot });
});

/** The layer rule's messages for `code` placed at `file` (relative to the repo). */
async function refusals(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  if (!result) throw new Error(`no lint result for ${file}`);
  // A parse error, or an import the resolver could not even attempt, would hide the rule.
  const broken = result.messages.filter((m) => m.fatal || m.ruleId === null || m.message.startsWith('Resolve error'));
  if (broken.length > 0) throw new Error(`${file}: ${broken.map((m) => m.message).join('; ')}`);
  return result.messages.filter((m) => m.ruleId !== null && LAYER_RULES.has(m.ruleId)).map((m) => m.message);
}

const use = (specifier: string): string => `import * as m from '${specifier}';\nexport const x = m;\n`;

/** The file a relative specifier names (`.js` standing for `.ts`), or null for a package. */
function target(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const resolved = path.resolve(repoRoot, path.dirname(file), specifier);
  const candidates = [resolved, resolved.replace(/\.js$/, '.ts'), resolved.replace(/\.cjs$/, '.cts')];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile()) ?? resolved;
}

/** Cases lint at real files and import real files: a refusal is the rule, not a typo. */
function expectReal(file: string, specifier: string): void {
  expect(fs.existsSync(path.join(repoRoot, file)), `${file} no longer exists: update this case`).toBe(true);
  const named = target(file, specifier);
  if (named) expect(fs.existsSync(named), `${specifier} from ${file} names no file: update this case`).toBe(true);
}

/** A relative specifier from `from` to `to`, the way the code spells it (`.js` for `.ts`). */
function specifierFrom(from: string, to: string): string {
  const relative = path.relative(path.dirname(from), to).replace(/\.ts$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

interface Refused {
  file: string;
  specifier: string;
  /** A phrase of the message that must explain the refusal. */
  because: string;
}

const CORE_UP = 'layers point one way';
const CORE_ONLY = 'may import only node, node-pty';
const SHARED_ONLY = 'the shared leaves at src/core/ (errors, event, ids, types) may import only';
const DEEP = 'only through src/core/index.ts';
const ELECTRON = 'src/ never imports electron';
const NODE_PTY = 'only src/core/ imports node-pty';
const MCP_ONLY = 'src/mcp/ may import only';
const HUB_ONLY = 'src/hub/hub.ts may import only';
const HUB_ROOM_ONLY = (room: string): string => `src/hub/${room}/ may import only its own files`;
const DEEP_HUB = 'outside src/hub/, the hub is imported only through src/hub/index.ts';
const HUB_COMPOSES = "only src/hub/hub.ts composes the hub's rooms";
const HUB_COMMON = 'src/hub/common/ is what the shim loads, so it imports only node and its own files';
const MCP_COMMAND_HUB = 'src/commands/mcp.ts runs the shim, so it may import of src/hub/ only its common/ room';
const SHIM_HUB = 'may import of src/hub/ only its common/ room';
const SHIM_CORE = 'src/shim/ loads no core and no MCP code';
const SHIM_ONLY = 'src/shim/ may import only';
const COMMANDS_ONLY = 'src/commands/ may import only';
const CLI_ONLY = 'src/cli.ts may import only';
const PROTOCOL_ONLY = 'src/ui-protocol/ may import only zod and its own files';
const DEEP_PROTOCOL = 'the UI protocol is imported only through its entry, src/ui-protocol/index.ts';
const MAIN_ONLY = 'main/ may import only';
const RENDERER_NODE = 'never imports a Node module';
const RENDERER_SRC = 'renderer/ may import from src/ only src/ui-protocol/index.ts';
const APP_NODE = "apps/ runs in a host's sandboxed frame and never imports a Node module";
const APP_SRC = 'apps/ may import from src/ only src/terminalThemes.ts';
const APP_UI = 'apps/ is built alone into one HTML document and imports neither main/ nor renderer/';
const APP_SDK = 'apps/ may import only the types of @modelcontextprotocol/ext-apps';
const POLICY_UP = 'src/policy/ decides on a command line alone and imports no other layer';
const POLICY_ONLY = 'src/policy/ may import only node, zod and @vscode/tree-sitter-wasm';
const SANDBOX_UP = "src/sandbox/ plans a session's sandbox and imports no other layer";
const SANDBOX_ONLY = 'src/sandbox/ may import only node, zod, @anthropic-ai/sandbox-runtime and src/packageInfo.ts';

const refused: Refused[] = [
  // src/core/ knows nothing of the layers above it, of MCP or of Electron.
  { file: 'src/core/session/sessionManager.ts', specifier: '../../hub/settings/settings.js', because: CORE_UP },
  { file: 'src/core/session/sessionManager.ts', specifier: '../../mcp/server.js', because: CORE_UP },
  { file: 'src/core/processes/processes.ts', specifier: '../../shim/forwarder.js', because: CORE_UP },
  { file: 'src/core/session/terminalSession.ts', specifier: '../../commands/serve.js', because: CORE_UP },
  { file: 'src/core/shell/shellIntegration.ts', specifier: '../../cli.js', because: CORE_UP },
  { file: 'src/core/transcript/transcript.ts', specifier: '../../ui-protocol/index.js', because: CORE_UP },
  { file: 'src/core/pty/spawnPty.ts', specifier: '../../../main/app.js', because: CORE_UP },
  { file: 'src/core/emulation/emulator.ts', specifier: '../../../renderer/src/app.js', because: CORE_UP },
  { file: 'src/core/session/sessionManager.ts', specifier: '@modelcontextprotocol/server', because: 'src/core/ knows nothing of MCP' },
  { file: 'src/core/session/terminalSession.ts', specifier: 'electron', because: ELECTRON },
  { file: 'src/core/session/terminalSession.ts', specifier: 'zod', because: CORE_ONLY },
  { file: 'src/core/pty/spawnPty.ts', specifier: '../../../test/unit/importBoundaries.test.js', because: CORE_ONLY },
  // Inside the core: rooms do not go through the public entry; the entry and the shared
  // leaves import nothing outside the core.
  { file: 'src/core/shell/marks.ts', specifier: '../index.js', because: 'not the public entry' },
  { file: 'src/core/errors.ts', specifier: './session/sessionManager.js', because: SHARED_ONLY },
  { file: 'src/core/types.ts', specifier: '@xterm/headless', because: SHARED_ONLY },
  { file: 'src/core/index.ts', specifier: '../hub/hub.js', because: 'src/core/index.ts may import only' },
  // src/mcp/: the core only through its entry; never the hub, the CLI, Node or Electron.
  { file: 'src/mcp/tools/execute.ts', specifier: '../../core/session/terminalSession.js', because: DEEP },
  { file: 'src/mcp/server.ts', specifier: '../core/errors.js', because: DEEP },
  { file: 'src/mcp/tools/kill.ts', specifier: '../../hub/hub.js', because: MCP_ONLY },
  { file: 'src/mcp/server.ts', specifier: '../cli.js', because: MCP_ONLY },
  { file: 'src/mcp/server.ts', specifier: '../ui-protocol/index.js', because: MCP_ONLY },
  { file: 'src/mcp/server.ts', specifier: 'node:fs', because: MCP_ONLY },
  { file: 'src/mcp/server.ts', specifier: 'electron', because: ELECTRON },
  // src/policy/: a leaf layer; nothing below or above it imports into it, the core not at all.
  { file: 'src/policy/decide.ts', specifier: '../core/index.js', because: POLICY_UP },
  { file: 'src/policy/decide.ts', specifier: '../core/errors.js', because: POLICY_UP },
  { file: 'src/policy/rules.ts', specifier: '../hub/settings/settings.js', because: POLICY_UP },
  { file: 'src/policy/rules.ts', specifier: '../hub/common/logger.js', because: POLICY_UP },
  { file: 'src/policy/decide.ts', specifier: '../mcp/server.js', because: POLICY_UP },
  { file: 'src/policy/decide.ts', specifier: '../ui-protocol/index.js', because: POLICY_UP },
  { file: 'src/policy/decide.ts', specifier: '../../renderer/src/app.js', because: POLICY_UP },
  { file: 'src/policy/decide.ts', specifier: '../../main/app.js', because: POLICY_UP },
  { file: 'src/policy/decide.ts', specifier: 'electron', because: ELECTRON },
  { file: 'src/policy/decide.ts', specifier: 'node-pty', because: POLICY_ONLY },
  { file: 'src/policy/decide.ts', specifier: '@modelcontextprotocol/server', because: POLICY_ONLY },
  { file: 'src/core/session/sessionManager.ts', specifier: '../../policy/index.js', because: CORE_UP },
  { file: 'src/shim/forwarder.ts', specifier: '../policy/index.js', because: SHIM_CORE },
  { file: 'renderer/src/app.ts', specifier: '../../src/policy/index.js', because: RENDERER_SRC },
  // src/sandbox/: a leaf layer too; the hub imports it, the core, mcp and the shim never do.
  { file: 'src/sandbox/agentSandbox.ts', specifier: '../core/index.js', because: SANDBOX_UP },
  { file: 'src/sandbox/agentSandbox.ts', specifier: '../core/errors.js', because: SANDBOX_UP },
  { file: 'src/sandbox/agentSandbox.ts', specifier: '../hub/common/logger.js', because: SANDBOX_UP },
  { file: 'src/sandbox/agentSandbox.ts', specifier: '../mcp/server.js', because: SANDBOX_UP },
  { file: 'src/sandbox/agentSandbox.ts', specifier: '../policy/index.js', because: SANDBOX_UP },
  { file: 'src/sandbox/settings.ts', specifier: '../ui-protocol/index.js', because: SANDBOX_UP },
  { file: 'src/sandbox/agentSandbox.ts', specifier: 'electron', because: ELECTRON },
  { file: 'src/sandbox/agentSandbox.ts', specifier: 'node-pty', because: NODE_PTY },
  { file: 'src/sandbox/agentSandbox.ts', specifier: '@modelcontextprotocol/server', because: SANDBOX_ONLY },
  { file: 'src/core/session/sessionManager.ts', specifier: '../../sandbox/index.js', because: CORE_UP },
  { file: 'src/mcp/tools/execute.ts', specifier: '../../sandbox/index.js', because: MCP_ONLY },
  { file: 'src/policy/decide.ts', specifier: '../sandbox/index.js', because: POLICY_UP },
  { file: 'src/shim/forwarder.ts', specifier: '../sandbox/index.js', because: SHIM_CORE },
  { file: 'renderer/src/app.ts', specifier: '../../src/sandbox/index.js', because: RENDERER_SRC },
  // src/hub/: the core only through its entry; nothing of the outer layers.
  { file: 'src/hub/hub.ts', specifier: '../core/session/sessionManager.js', because: DEEP },
  { file: 'src/hub/ui/uiHost.ts', specifier: '../../core/types.js', because: DEEP },
  { file: 'src/hub/hub.ts', specifier: '../cli.js', because: HUB_ONLY },
  { file: 'src/hub/hub.ts', specifier: '../commands/serve.js', because: HUB_ONLY },
  { file: 'src/hub/hub.ts', specifier: '../shim/forwarder.js', because: HUB_ONLY },
  { file: 'src/hub/hub.ts', specifier: '../../main/app.js', because: HUB_ONLY },
  { file: 'src/hub/ui/uiStatic.ts', specifier: '../../../renderer/src/app.js', because: HUB_ROOM_ONLY('ui') },
  { file: 'src/hub/hub.ts', specifier: 'electron', because: ELECTRON },
  { file: 'src/hub/hub.ts', specifier: '@electron/fuses', because: ELECTRON },
  { file: 'src/hub/settings/settings.ts', specifier: 'electron-store', because: ELECTRON },
  { file: 'src/hub/hub.ts', specifier: 'node-pty', because: NODE_PTY },
  { file: 'src/hub/gate/commandGate.ts', specifier: 'node-pty', because: NODE_PTY },
  { file: 'src/hub/endpoints/socketServer.ts', specifier: '../../core/session/sessionManager.js', because: DEEP },
  { file: 'src/hub/ui/uiBridge.ts', specifier: 'electron', because: ELECTRON },
  // src/hub/'s rooms: only the composition root composes, and nothing imports the entry from inside.
  { file: 'src/hub/ui/uiHost.ts', specifier: '../hub.js', because: HUB_COMPOSES },
  { file: 'src/hub/endpoints/httpServer.ts', specifier: '../index.js', because: HUB_COMPOSES },
  { file: 'src/hub/hub.ts', specifier: './index.js', because: HUB_COMPOSES },
  { file: 'src/hub/index.ts', specifier: '../core/index.js', because: 'src/hub/index.ts may import only' },
  // common/ is what the shim loads: node and its own files only.
  { file: 'src/hub/common/logger.ts', specifier: '../../core/index.js', because: HUB_COMMON },
  { file: 'src/hub/common/jsonRpc.ts', specifier: '../../mcp/server.js', because: HUB_COMMON },
  { file: 'src/hub/common/hubInfo.ts', specifier: 'zod', because: HUB_COMMON },
  // src/shim/: a thin forwarder (docs/design.md §4.4).
  { file: 'src/shim/forwarder.ts', specifier: '../core/index.js', because: SHIM_CORE },
  { file: 'src/shim/forwarder.ts', specifier: '../core/session/sessionManager.js', because: SHIM_CORE },
  { file: 'src/shim/forwarder.ts', specifier: '../mcp/server.js', because: SHIM_CORE },
  { file: 'src/shim/forwarder.ts', specifier: '@modelcontextprotocol/server', because: SHIM_CORE },
  { file: 'src/shim/hubConnection.ts', specifier: '@modelcontextprotocol/client', because: SHIM_CORE },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/hub.js', because: SHIM_HUB },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/settings/settings.js', because: SHIM_HUB },
  { file: 'src/shim/hubConnector.ts', specifier: '../hub/endpoints/socketServer.js', because: SHIM_HUB },
  { file: 'src/shim/hubConnector.ts', specifier: '../hub/state/token.js', because: SHIM_HUB },
  { file: 'src/shim/forwarder.ts', specifier: 'node-pty', because: SHIM_ONLY },
  { file: 'src/shim/forwarder.ts', specifier: 'zod', because: SHIM_ONLY },
  { file: 'src/shim/forwarder.ts', specifier: 'electron', because: ELECTRON },
  { file: 'src/shim/forwarder.ts', specifier: '../cli.js', because: SHIM_ONLY },
  { file: 'src/shim/forwarder.ts', specifier: '../commands/mcp.js', because: SHIM_ONLY },
  // src/commands/ and src/cli.ts: hub, mcp, shim, the core's entry; nothing of Electron.
  { file: 'src/commands/export.ts', specifier: '../core/transcript/sessionStore.js', because: DEEP },
  { file: 'src/commands/serve.ts', specifier: '../hub/hub.js', because: DEEP_HUB },
  { file: 'src/commands/status.ts', specifier: '../hub/endpoints/socketServer.js', because: DEEP_HUB },
  { file: 'src/commands/config.ts', specifier: '../hub/settings/settings.js', because: DEEP_HUB },
  { file: 'src/commands/export.ts', specifier: '../hub/history/historyIndex.js', because: DEEP_HUB },
  { file: 'src/commands/mcp.ts', specifier: '../hub/index.js', because: MCP_COMMAND_HUB },
  { file: 'src/commands/mcp.ts', specifier: '../hub/hub.js', because: MCP_COMMAND_HUB },
  { file: 'src/commands/mcp.ts', specifier: '../core/index.js', because: SHIM_CORE },
  { file: 'src/cli.ts', specifier: './hub/hub.js', because: DEEP_HUB },
  { file: 'src/commands/serve.ts', specifier: '../cli.js', because: COMMANDS_ONLY },
  { file: 'src/commands/serve.ts', specifier: '../ui-protocol/index.js', because: COMMANDS_ONLY },
  { file: 'src/commands/serve.ts', specifier: '../../main/app.js', because: COMMANDS_ONLY },
  { file: 'src/commands/serve.ts', specifier: 'electron', because: ELECTRON },
  { file: 'src/commands/status.ts', specifier: 'node-pty', because: NODE_PTY },
  { file: 'src/cli.ts', specifier: './core/session/sessionManager.js', because: DEEP },
  { file: 'src/cli.ts', specifier: '../main/index.js', because: CLI_ONLY },
  { file: 'src/cli.ts', specifier: 'electron/main', because: ELECTRON },
  // src/ui-protocol/: zod and its own files (renderer/ imports it); the others only through its entry.
  { file: 'src/ui-protocol/index.ts', specifier: '../core/types.js', because: PROTOCOL_ONLY },
  { file: 'src/ui-protocol/hubMessages.ts', specifier: '../core/index.js', because: PROTOCOL_ONLY },
  { file: 'src/ui-protocol/index.ts', specifier: '../packageInfo.js', because: PROTOCOL_ONLY },
  { file: 'src/ui-protocol/bridge.ts', specifier: '../../renderer/src/bridge.js', because: PROTOCOL_ONLY },
  { file: 'src/ui-protocol/frameCodec.ts', specifier: 'node:fs', because: PROTOCOL_ONLY },
  { file: 'src/ui-protocol/index.ts', specifier: 'node-pty', because: PROTOCOL_ONLY },
  { file: 'src/ui-protocol/hubMessages.ts', specifier: './index.js', because: 'inside src/ui-protocol/, import the file you need, not the entry' },
  { file: 'renderer/src/app.ts', specifier: '../../src/ui-protocol/hubMessages.js', because: DEEP_PROTOCOL },
  { file: 'main/ipc.ts', specifier: '../src/ui-protocol/appCommands.js', because: DEEP_PROTOCOL },
  { file: 'src/hub/ui/uiBridge.ts', specifier: '../../ui-protocol/clientMessages.js', because: DEEP_PROTOCOL },
  // src/terminalThemes.ts: plain data, imports nothing (renderer/ and the hub import it).
  { file: 'src/terminalThemes.ts', specifier: 'zod', because: 'src/terminalThemes.ts may import only nothing' },
  { file: 'src/terminalThemes.ts', specifier: 'node:fs', because: 'src/terminalThemes.ts may import only nothing' },
  { file: 'src/mcp/server.ts', specifier: '../terminalThemes.js', because: MCP_ONLY },
  // src/packageInfo.ts: a leaf, node only.
  { file: 'src/packageInfo.ts', specifier: './core/index.js', because: 'src/packageInfo.ts may import only node' },
  // src/compileCache.ts: runs before any command's modules load, so node only; only src/cli.ts imports it.
  { file: 'src/compileCache.ts', specifier: './packageInfo.js', because: 'src/compileCache.ts may import only node' },
  { file: 'src/commands/serve.ts', specifier: '../compileCache.js', because: COMMANDS_ONLY },
  // src/mcpIntroduction.ts: plain data src/mcp/ and the shim share; imports nothing, and the hub has no use for it.
  { file: 'src/mcpIntroduction.ts', specifier: 'node:fs', because: 'src/mcpIntroduction.ts may import only nothing' },
  { file: 'src/mcpIntroduction.ts', specifier: './packageInfo.js', because: 'src/mcpIntroduction.ts may import only nothing' },
  { file: 'src/mcpIntroduction.ts', specifier: './mcp/server.js', because: 'src/mcpIntroduction.ts may import only nothing' },
  { file: 'src/hub/hub.ts', specifier: '../mcpIntroduction.js', because: HUB_ONLY },
  // main/ reaches the core only through src/hub/.
  { file: 'main/index.ts', specifier: '../src/core/index.js', because: MAIN_ONLY },
  { file: 'main/trayMenu.ts', specifier: '../src/core/types.js', because: MAIN_ONLY },
  { file: 'main/app.ts', specifier: '../src/mcp/server.js', because: MAIN_ONLY },
  { file: 'main/index.ts', specifier: '../src/cli.js', because: MAIN_ONLY },
  { file: 'main/app.ts', specifier: '../src/commands/config.js', because: MAIN_ONLY },
  { file: 'main/index.ts', specifier: '../src/shim/forwarder.js', because: MAIN_ONLY },
  { file: 'main/index.ts', specifier: '../renderer/src/app.js', because: MAIN_ONLY },
  { file: 'main/index.ts', specifier: 'node-pty', because: MAIN_ONLY },
  { file: 'main/app.ts', specifier: '@modelcontextprotocol/server', because: MAIN_ONLY },
  { file: 'main/app.ts', specifier: '../src/hub/hub.js', because: DEEP_HUB },
  { file: 'main/app.ts', specifier: '../src/hub/hostConfig/hostConfig.js', because: DEEP_HUB },
  { file: 'main/index.ts', specifier: '../src/hub/common/stateDir.js', because: DEEP_HUB },
  { file: 'main/ipc.ts', specifier: '../src/hub/ui/uiHost.js', because: DEEP_HUB },
  // renderer/ never imports Node, node-pty, electron, src/ (but ui-protocol) or main/.
  { file: 'renderer/src/app.ts', specifier: 'node:fs', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'fs', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'fs/promises', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'path', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'child_process', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'os', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'net', because: RENDERER_NODE },
  { file: 'renderer/src/terminalTabs.ts', specifier: 'node:child_process', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'node-pty', because: RENDERER_NODE },
  { file: 'renderer/src/app.ts', specifier: 'electron', because: 'renderer/ never imports electron' },
  { file: 'renderer/src/app.ts', specifier: '../../src/core/index.js', because: RENDERER_SRC },
  { file: 'renderer/src/app.ts', specifier: '../../src/core/session/terminalSession.js', because: RENDERER_SRC },
  { file: 'renderer/src/app.ts', specifier: '../../src/hub/hub.js', because: RENDERER_SRC },
  { file: 'renderer/src/terminalTabs.ts', specifier: '../../src/mcp/server.js', because: RENDERER_SRC },
  { file: 'renderer/src/app.ts', specifier: '../../src/packageInfo.js', because: RENDERER_SRC },
  { file: 'renderer/src/app.ts', specifier: '../../main/ipc.js', because: 'renderer/ never imports main/' },
  { file: 'renderer/src/app.ts', specifier: 'ws', because: 'renderer/ may import only' },
  // apps/ (MCP Apps in a host's frame): no Node, no electron, of src/ only the themes, no other UI, no SDK code.
  { file: 'apps/terminal/main.ts', specifier: 'node:fs', because: APP_NODE },
  { file: 'apps/terminal/main.ts', specifier: 'path', because: APP_NODE },
  { file: 'apps/terminal/hostChannel.ts', specifier: 'node:child_process', because: APP_NODE },
  { file: 'apps/terminal/main.ts', specifier: 'node-pty', because: APP_NODE },
  { file: 'apps/terminal/main.ts', specifier: 'electron', because: APP_NODE },
  { file: 'apps/terminal/main.ts', specifier: '../../src/ui-protocol/index.js', because: APP_SRC },
  { file: 'apps/terminal/main.ts', specifier: '../../src/core/index.js', because: APP_SRC },
  { file: 'apps/terminal/screenPoller.ts', specifier: '../../src/mcp/tools/screenUpdates.js', because: APP_SRC },
  { file: 'apps/terminal/main.ts', specifier: '../../src/mcpIntroduction.js', because: APP_SRC },
  { file: 'apps/terminal/terminalPane.ts', specifier: '../../renderer/src/terminalReplies.js', because: APP_UI },
  { file: 'apps/terminal/main.ts', specifier: '../../main/ipc.js', because: APP_UI },
  { file: 'apps/terminal/main.ts', specifier: '@modelcontextprotocol/ext-apps', because: APP_SDK },
  { file: 'apps/terminal/main.ts', specifier: '@modelcontextprotocol/ext-apps/app-bridge', because: APP_SDK },
  { file: 'apps/terminal/main.ts', specifier: '@modelcontextprotocol/client', because: APP_SDK },
  { file: 'apps/terminal/main.ts', specifier: 'lit-html', because: 'apps/ may import only' },
  { file: 'apps/terminal/main.ts', specifier: 'zod', because: 'apps/ may import only' },
  { file: 'apps/terminal/main.ts', specifier: '@xterm/addon-fit', because: 'apps/ may import only' },
  // …and nothing imports apps/: it is built alone, into a document the hub serves as a resource.
  { file: 'src/mcp/terminalApp.ts', specifier: '../../apps/terminal/main.js', because: MCP_ONLY },
  { file: 'src/hub/ui/terminalAppHtml.ts', specifier: '../../../apps/terminal/main.js', because: HUB_ROOM_ONLY('ui') },
  { file: 'renderer/src/app.ts', specifier: '../../apps/terminal/hostChannel.js', because: 'renderer/ may import only' },
];

const allowed: { file: string; specifier: string }[] = [
  // src/core/: node, node-pty, xterm, its shared leaves, packageInfo, rooms below.
  { file: 'src/core/pty/spawnPty.ts', specifier: 'node-pty' },
  { file: 'src/core/processes/processes.ts', specifier: 'node:child_process' },
  { file: 'src/core/emulation/emulator.ts', specifier: '@xterm/headless' },
  { file: 'src/core/emulation/emulator.ts', specifier: '@xterm/addon-serialize' },
  { file: 'src/core/session/terminalSession.ts', specifier: './sessionEnv.js' },
  { file: 'src/core/session/terminalSession.ts', specifier: '../errors.js' },
  { file: 'src/core/pty/spawnPty.ts', specifier: '../event.js' },
  { file: 'src/core/shell/shellIntegration.ts', specifier: '../../packageInfo.js' },
  { file: 'src/core/ids.ts', specifier: 'node:crypto' },
  { file: 'src/core/errors.ts', specifier: './types.js' },
  { file: 'src/core/index.ts', specifier: './session/sessionManager.js' },
  { file: 'src/core/index.ts', specifier: './errors.js' },
  // src/mcp/
  { file: 'src/mcp/tools/execute.ts', specifier: '../../core/index.js' },
  { file: 'src/mcp/tools/execute.ts', specifier: '../schemas.js' },
  { file: 'src/mcp/server.ts', specifier: '../packageInfo.js' },
  { file: 'src/mcp/server.ts', specifier: '../mcpIntroduction.js' },
  { file: 'src/mcp/server.ts', specifier: '@modelcontextprotocol/server' },
  { file: 'src/mcp/server.ts', specifier: 'zod' },
  // src/policy/: its own files, node, zod, the parser; the hub and mcp import it.
  { file: 'src/policy/decide.ts', specifier: './rules.js' },
  { file: 'src/policy/decide.ts', specifier: 'node:path' },
  { file: 'src/policy/rules.ts', specifier: 'zod' },
  { file: 'src/policy/shellParser.ts', specifier: '@vscode/tree-sitter-wasm' },
  { file: 'src/hub/settings/settings.ts', specifier: '../../policy/index.js' },
  { file: 'src/mcp/tools/execute.ts', specifier: '../../policy/index.js' },
  // src/sandbox/: its own files, node, zod, the library, the package root; the hub imports it.
  { file: 'src/sandbox/agentSandbox.ts', specifier: './availability.js' },
  { file: 'src/sandbox/agentSandbox.ts', specifier: 'node:fs' },
  { file: 'src/sandbox/settings.ts', specifier: 'zod' },
  { file: 'src/sandbox/srtInternals.ts', specifier: '@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js' },
  { file: 'src/sandbox/launchWrappers.ts', specifier: '../packageInfo.js' },
  { file: 'src/hub/hub.ts', specifier: '../sandbox/index.js' },
  // src/hub/
  { file: 'src/hub/hub.ts', specifier: '../core/index.js' },
  { file: 'src/hub/hub.ts', specifier: '../mcp/server.js' },
  { file: 'src/hub/hub.ts', specifier: '../ui-protocol/index.js' },
  { file: 'src/hub/hub.ts', specifier: './hostConfig/hostConfig.js' },
  { file: 'src/hub/hub.ts', specifier: '../terminalThemes.js' },
  { file: 'src/hub/endpoints/httpServer.ts', specifier: 'node:http' },
  { file: 'src/hub/ui/uiWebSocket.ts', specifier: 'ws' },
  { file: 'src/hub/ui/uiBridge.ts', specifier: '../../core/index.js' },
  { file: 'src/hub/ui/uiBridge.ts', specifier: '../../ui-protocol/index.js' },
  { file: 'src/hub/gate/commandGate.ts', specifier: '../../policy/index.js' },
  { file: 'src/hub/gate/commandGate.ts', specifier: '../../mcp/server.js' },
  { file: 'src/hub/common/hubInfo.ts', specifier: 'node:fs' },
  { file: 'src/hub/common/hubInfo.ts', specifier: './socketProtocol.js' },
  { file: 'src/hub/common/socketHandshake.ts', specifier: 'node:net' },
  { file: 'src/hub/index.ts', specifier: './hub.js' },
  { file: 'src/hub/index.ts', specifier: './ui/uiStatic.js' },
  { file: 'src/hub/endpoints/mcpHttpEndpoint.ts', specifier: '@modelcontextprotocol/node' },
  // src/shim/
  { file: 'src/shim/hubConnection.ts', specifier: '../hub/common/socketProtocol.js' },
  { file: 'src/shim/hubConnection.ts', specifier: '../hub/common/socketHandshake.js' },
  { file: 'src/shim/hubConnection.ts', specifier: '../hub/common/hubInfo.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/common/stateDir.js' },
  { file: 'src/shim/forwarder.ts', specifier: '../hub/common/logger.js' },
  { file: 'src/shim/forwarder.ts', specifier: './lineReader.js' },
  { file: 'src/shim/version.ts', specifier: '../packageInfo.js' },
  { file: 'src/shim/discover.ts', specifier: '../mcpIntroduction.js' },
  { file: 'src/shim/hubConnection.ts', specifier: 'node:net' },
  // src/commands/ and src/cli.ts
  { file: 'src/commands/mcp.ts', specifier: '../shim/forwarder.js' },
  { file: 'src/commands/serve.ts', specifier: '../hub/index.js' },
  { file: 'src/commands/mcp.ts', specifier: '../hub/common/logger.js' },
  // A command that starts no hub imports the light rooms directly, so it does not load the hub.
  { file: 'src/commands/config.ts', specifier: '../hub/hostConfig/hostConfig.js' },
  { file: 'src/commands/export.ts', specifier: '../hub/common/stateDir.js' },
  { file: 'src/commands/status.ts', specifier: '../hub/common/socketClient.js' },
  { file: 'src/commands/status.ts', specifier: '../hub/state/token.js' },
  { file: 'src/commands/status.ts', specifier: '../mcp/server.js' },
  { file: 'src/commands/export.ts', specifier: '../core/index.js' },
  { file: 'src/cli.ts', specifier: './commands/serve.js' },
  { file: 'src/cli.ts', specifier: './mcp/server.js' },
  { file: 'src/cli.ts', specifier: './hub/index.js' },
  { file: 'src/cli.ts', specifier: './compileCache.js' },
  // src/ui-protocol/
  { file: 'src/ui-protocol/hubMessages.ts', specifier: 'zod' },
  { file: 'src/ui-protocol/hubMessages.ts', specifier: './sessionShapes.js' },
  { file: 'src/ui-protocol/index.ts', specifier: './frameCodec.js' },
  // main/
  { file: 'main/index.ts', specifier: 'electron' },
  { file: 'main/preferences.ts', specifier: 'electron-store' },
  { file: 'main/preferences.ts', specifier: 'zod' },
  { file: 'main/app.ts', specifier: '../src/hub/index.js' },
  { file: 'main/ipc.ts', specifier: '../src/ui-protocol/index.js' },
  { file: 'main/index.ts', specifier: 'node:path' },
  { file: 'main/index.ts', specifier: './app.js' },
  // renderer/
  { file: 'renderer/src/app.ts', specifier: '../../src/ui-protocol/index.js' },
  { file: 'renderer/src/theme.ts', specifier: '../../src/terminalThemes.js' },
  { file: 'renderer/src/app.ts', specifier: '@xterm/xterm' },
  { file: 'renderer/src/terminalView.ts', specifier: '@xterm/addon-fit' },
  { file: 'renderer/src/app.ts', specifier: 'lit-html' },
  { file: 'renderer/src/app.ts', specifier: './bridge.js' },
  // apps/
  { file: 'apps/terminal/terminalPane.ts', specifier: '@xterm/xterm' },
  { file: 'apps/terminal/terminalPane.ts', specifier: '../../src/terminalThemes.js' },
  { file: 'apps/terminal/main.ts', specifier: './hostChannel.js' },
  // Tests and bench/ may import anything.
  { file: 'test/unit/importBoundaries.test.ts', specifier: '../../src/core/session/terminalSession.js' },
  { file: 'test/unit/importBoundaries.test.ts', specifier: 'electron' },
  { file: 'bench/run.ts', specifier: 'node-pty' },
  { file: 'bench/run.ts', specifier: '../src/core/session/terminalSession.js' },
];

describe('one-way import rule (docs/design.md §1.2)', () => {
  it.each(refused)('refuses $specifier in $file', async ({ file, specifier, because }) => {
    expectReal(file, specifier);
    const messages = await refusals(file, use(specifier));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('docs/design.md §1.2');
    expect(messages[0]).toContain(because);
    expect(messages[0]).toContain(`'${specifier}'`);
  });

  it.each(allowed)('allows $specifier in $file', async ({ file, specifier }) => {
    expectReal(file, specifier);
    expect(await refusals(file, use(specifier))).toEqual([]);
  });

  it('classifies by the file an import resolves to, not by the words of the specifier', async () => {
    // A regex over specifiers would read "mcp", "hub" or "src" here; the resolved file decides.
    expect(await refusals('src/hub/hub.ts', use('../mcp/../core/session/terminalSession.js'))).toEqual([expect.stringContaining(DEEP)]);
    expect(await refusals('main/app.ts', use('../src/hub/../core/index.js'))).toEqual([expect.stringContaining(MAIN_ONLY)]);
    expect(await refusals('src/mcp/tools/execute.ts', use('../../hub/../core/index.js'))).toEqual([]);
    expect(await refusals('src/shim/forwarder.ts', use('../core/../hub/common/logger.js'))).toEqual([]);
    expect(await refusals('renderer/src/app.ts', use('../../src/../src/ui-protocol/index.js'))).toEqual([]);
    // The message names the file the import resolved to.
    expect(await refusals('src/shim/forwarder.ts', use('../mcp/../hub/hub.js'))).toEqual([expect.stringContaining('(that is src/hub/hub.ts)')]);
  });

  it('checks every form: type-only imports, re-exports, import = require, import() types, import() and require()', async () => {
    const file = 'src/core/session/terminalSession.ts';
    const forms = [
      `import type { App } from 'electron';\nexport type A = App;\n`,
      `import { type App } from 'electron';\nexport type A = App;\n`,
      `export { app } from 'electron';\n`,
      `export type { App } from 'electron';\n`,
      `export * from 'electron';\n`,
      `export * as electron from 'electron';\n`,
      `import electron = require('electron');\nexport const e = electron;\n`,
      `export type A = import('electron').App;\n`,
      `export const e = await import('electron');\n`,
      `export const e = require('electron');\n`,
      `import 'electron';\n`,
    ];
    for (const code of forms) expect(await refusals(file, code), code).toEqual([expect.stringContaining(ELECTRON)]);
    // The same forms with a local file: resolved and refused too.
    const deep = '../core/session/terminalSession.js';
    for (const code of [
      `export const s = import('${deep}');\n`,
      `export const s = require('${deep}');\n`,
      `export type S = import('${deep}').TerminalSession;\n`,
      `export type { TerminalSession } from '${deep}';\n`,
    ]) {
      expect(await refusals('src/hub/hub.ts', code), code).toEqual([expect.stringContaining(DEEP)]);
    }
    expect(await refusals('renderer/src/app.ts', `export const p = import('../../src/ui-protocol/index.js');\n`)).toEqual([]);
  });

  it('lets apps/ import the types of @modelcontextprotocol/ext-apps, never its code', async () => {
    const file = 'apps/terminal/main.ts';
    for (const code of [
      `import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';\nexport type C = McpUiHostContext;\n`,
      `export type C = import('@modelcontextprotocol/ext-apps').McpUiHostContext;\n`,
    ]) {
      expect(await refusals(file, code), code).toEqual([]);
    }
    for (const code of [
      // An inline `type` leaves a value import behind (`import {} from …` under verbatim module syntax).
      `import { type McpUiHostContext } from '@modelcontextprotocol/ext-apps';\nexport type C = McpUiHostContext;\n`,
      `import { PostMessageTransport } from '@modelcontextprotocol/ext-apps';\nexport const t = PostMessageTransport;\n`,
      `export const m = await import('@modelcontextprotocol/ext-apps');\n`,
      `export { App } from '@modelcontextprotocol/ext-apps';\n`,
    ]) {
      expect(await refusals(file, code), code).toEqual([expect.stringContaining(APP_SDK)]);
    }
  });

  it('checks JavaScript files too', async () => {
    expect(await refusals('renderer/src/helper.js', use('node:os'))).toEqual([expect.stringContaining(RENDERER_NODE)]);
    expect(await refusals('src/hub/ui/helper.mjs', use('electron'))).toEqual([expect.stringContaining(ELECTRON)]);
    expect(await refusals('main/helper.cjs', `module.exports = require('../src/core/index.js');\n`)).toEqual([expect.stringContaining(MAIN_ONLY)]);
  });

  it('refuses a file or a room it does not know', async () => {
    expect(await refusals('src/newModule.ts', 'export const x = 1;\n')).toEqual([expect.stringContaining('does not match any file pattern')]);
    expect(await refusals('apps/newApp/main.ts', use('@xterm/xterm'))).toEqual([]);
    expect(await refusals('src/core/newRoom/thing.ts', use('../errors.js'))).toEqual([expect.stringContaining('src/core/newRoom/ is not in the room order')]);
    // The same for src/hub/: a file at its root that is neither hub.ts nor index.ts, or a folder not in the order.
    for (const file of ['src/hub/helper.ts', 'src/hub/newRoom/thing.ts']) {
      expect(await refusals(file, use('node:fs')), file).toEqual([expect.stringContaining(`${file} is neither a room in the order`)]);
    }
  });
});

describe('the rooms of src/core/ (docs/design.md §1.2)', () => {
  // Top to bottom, as in eslint.config.js; one real file of each room.
  const rooms: [string, string][] = [
    ['session', 'src/core/session/sessionManager.ts'],
    ['transcript', 'src/core/transcript/transcript.ts'],
    ['emulation', 'src/core/emulation/emulator.ts'],
    ['processes', 'src/core/processes/processes.ts'],
    ['shell', 'src/core/shell/marks.ts'],
    ['output', 'src/core/output/outputWindow.ts'],
    ['pty', 'src/core/pty/spawnPty.ts'],
  ];
  const pairs = rooms.flatMap(([upper, upperFile], i) => rooms.slice(i + 1).map(([lower, lowerFile]) => ({ upper, upperFile, lower, lowerFile })));

  it.each(pairs)('$upper may import $lower', async ({ upperFile, lowerFile }) => {
    expectReal(upperFile, specifierFrom(upperFile, lowerFile));
    expect(await refusals(upperFile, use(specifierFrom(upperFile, lowerFile)))).toEqual([]);
  });

  it.each(pairs)('$lower may not import $upper', async ({ upperFile, lower, lowerFile }) => {
    const messages = await refusals(lowerFile, use(specifierFrom(lowerFile, upperFile)));
    expect(messages).toEqual([expect.stringContaining(`src/core/${lower}/ may import only the rooms below it`)]);
    expect(messages[0]).toContain('session → transcript → emulation → processes → shell → output → pty');
  });
});

describe('the rooms of src/hub/ (docs/design.md §1.2)', () => {
  // Top to bottom, as HUB_ROOMS in eslint.config.js; one real file of each room.
  const ORDER = 'remote → ui → endpoints → transports → gate → settings → state → history → audit → screenshot → hostConfig → common';
  const rooms: [string, string][] = [
    ['remote', 'src/hub/remote/remotes.ts'],
    ['ui', 'src/hub/ui/uiHost.ts'],
    ['endpoints', 'src/hub/endpoints/httpServer.ts'],
    ['transports', 'src/hub/transports/rateLimiter.ts'],
    ['gate', 'src/hub/gate/approvals.ts'],
    ['settings', 'src/hub/settings/settings.ts'],
    ['state', 'src/hub/state/token.ts'],
    ['history', 'src/hub/history/historyIndex.ts'],
    ['audit', 'src/hub/audit/audit.ts'],
    ['screenshot', 'src/hub/screenshot/takeScreenshot.ts'],
    ['hostConfig', 'src/hub/hostConfig/hostConfig.ts'],
    ['common', 'src/hub/common/logger.ts'],
  ];
  const pairs = rooms.flatMap(([upper, upperFile], i) => rooms.slice(i + 1).map(([lower, lowerFile]) => ({ upper, upperFile, lower, lowerFile })));

  it.each(pairs)('$upper may import $lower', async ({ upperFile, lowerFile }) => {
    expectReal(upperFile, specifierFrom(upperFile, lowerFile));
    expect(await refusals(upperFile, use(specifierFrom(upperFile, lowerFile)))).toEqual([]);
  });

  it.each(pairs)('$lower may not import $upper', async ({ upperFile, lower, lowerFile }) => {
    const messages = await refusals(lowerFile, use(specifierFrom(lowerFile, upperFile)));
    if (lower === 'common') {
      expect(messages).toEqual([expect.stringContaining(HUB_COMMON)]);
    } else {
      expect(messages).toEqual([expect.stringContaining(HUB_ROOM_ONLY(lower))]);
      expect(messages[0]).toContain(ORDER);
    }
  });

  it.each(rooms)('the composition root may import %s, and the room may not import it', async (_room, file) => {
    expect(await refusals('src/hub/hub.ts', use(specifierFrom('src/hub/hub.ts', file)))).toEqual([]);
    expect(await refusals(file, use(specifierFrom(file, 'src/hub/hub.ts')))).toEqual([expect.stringContaining(_room === 'common' ? HUB_COMMON : HUB_COMPOSES)]);
  });

  it('the top room (remote/) reaches the core only through its entry', async () => {
    expect(await refusals('src/hub/remote/remotes.ts', use('../../core/session/sessionManager.js'))).toEqual([expect.stringContaining(DEEP)]);
  });
});
