// ESLint flat config: typescript-eslint's recommended rules (not type-aware, so
// `npm run lint` stays fast) plus the one-way import rule of docs/design.md §1.2.
//
// The layer rule is eslint-plugin-boundaries' `boundaries/dependencies`, checked on
// resolved paths: every import is resolved by eslint-import-resolver-typescript (our
// `.js` specifiers name `.ts` files) and the file it lands on is classified by where it
// lives (AREAS below), not by the words in the specifier. Node built-ins and packages
// are classified by what the specifier names (`node:fs`, `electron`).
//
// Every area has a closed list of what it may import; anything else is refused with a
// message naming the rule, what was imported and what to do. Checked forms: static
// imports (type-only ones too: a layer may not even know the types of a layer it must
// not depend on), re-exports, `import x = require()`, `import('x')` types, and dynamic
// `import()` / `require()` with a literal specifier. Tests, bench/ and the scripts are
// not classified and may import anything. test/unit/importBoundaries.test.ts proves
// every restriction fires on real paths.
import path from 'node:path';
import { defineConfig, globalIgnores } from 'eslint/config';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

const ANY_SOURCE = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}';
const RULE = 'docs/design.md §1.2';

// ---- Where each file belongs (paths from the repository root). ---------------------
// A file may carry several categories (a file of the hub's common/ room is also hub). A file under src/, main/,
// renderer/ or apps/ that matches none is an error (boundaries/no-unknown-files): a new layer
// or top-level module is added here and to the table of docs/design.md §1.1 first.
const AREAS = [
  { category: 'core-entry', pattern: 'src/core/index.ts' },
  { category: 'core-shared', pattern: 'src/core/{errors,event,ids,types}.ts' },
  { category: 'core-room', pattern: 'src/core/*/**/*', capture: ['room'] },
  { category: 'mcp', pattern: 'src/mcp/**' },
  { category: 'policy', pattern: 'src/policy/**' },
  { category: 'sandbox', pattern: 'src/sandbox/**' },
  { category: 'hub-entry', pattern: 'src/hub/index.ts' },
  { category: 'hub-root', pattern: 'src/hub/hub.ts' },
  { category: 'hub-common', pattern: 'src/hub/common/**' },
  { category: 'hub-room', pattern: 'src/hub/*/**', capture: ['hubRoom'] },
  { category: 'hub', pattern: 'src/hub/**' },
  { category: 'shim', pattern: 'src/shim/**' },
  { category: 'commands', pattern: 'src/commands/**' },
  { category: 'cli', pattern: 'src/cli.ts' },
  { category: 'ui-protocol-entry', pattern: 'src/ui-protocol/index.ts' },
  { category: 'ui-protocol', pattern: 'src/ui-protocol/**' },
  { category: 'package-info', pattern: 'src/packageInfo.ts' },
  { category: 'compile-cache', pattern: 'src/compileCache.ts' },
  { category: 'mcp-introduction', pattern: 'src/mcpIntroduction.ts' },
  { category: 'terminal-themes', pattern: 'src/terminalThemes.ts' },
  { category: 'main', pattern: 'main/**' },
  { category: 'renderer', pattern: 'renderer/**' },
  { category: 'app', pattern: 'apps/**' },
];

// ---- The rooms of src/core/, top to bottom. ----------------------------------------
// A room imports only rooms below it (and the shared leaves at src/core/'s root), so the
// rooms cannot form a cycle. The order follows the imports:
//   session     owns everything a session is made of, the byte stream's pipe included
//   transcript  replays through an Emulator and reads TrackedCommands
//   emulation   the Emulator hosts the CommandTracker and reads shell marks
//   processes   reads the session marker from the shell's environment (shell/marks)
//   shell       shell integration, marks, the command tracker
//   output      text helpers: UTF-8 boundaries, the output window, the buffer as text
//   pty         spawning a PTY: imports no room
const ROOMS = ['session', 'transcript', 'emulation', 'processes', 'shell', 'output', 'pty'];

// ---- The rooms of src/hub/, top to bottom. -----------------------------------------
// The same rule: a room imports only its own files and the rooms below it; hub.ts (the
// composition root) imports them all and only it composes; src/hub/index.ts is the one entry
// for main/ and src/commands/. The order follows the imports:
//   remote      hubs reached over SSH: composes on the endpoints and the UI, the core through the manager
//   ui          the person's UI: provides the endpoints' UiEndpoint, reads gate, settings, history, audit
//   endpoints   the socket and HTTP: wraps connections in transports, checks credentials (state), audits
//   transports  the MCP transports and their limits
//   gate        the policy gate and approvals: reads the policy from settings, writes audit lines
//   settings    settings.json and its editor: reads the token's age (state)
//   state       lock, token and UI key, login codes (node only: a light room the commands may import)
//   history     the history database
//   audit       the audit log
//   screenshot  a screen as a PNG
//   hostConfig  MCP hosts' config files
//   common      what the shim may load too: node only, so the shim stays light
const HUB_ROOMS = ['remote', 'ui', 'endpoints', 'transports', 'gate', 'settings', 'state', 'history', 'audit', 'screenshot', 'hostConfig', 'common'];

// ---- Selectors. ---------------------------------------------------------------------
const area = (...categories) => ({ file: { categories } });
const room = (...names) => ({ file: { categories: 'core-room', captured: { room: names } } });
const hubRoom = (...names) => ({ file: { categories: 'hub-room', captured: { hubRoom: names } } });
const pkg = (...sources) => ({ module: { origin: 'external', source: sources } });
const NODE = { module: { origin: 'core' } };
const ANY_PACKAGE = { module: { origin: 'external' } };
const ANYTHING = { dependency: { kind: '*' } };

const ELECTRON = pkg('electron', '@electron/*', 'electron-*');
const MCP_SDK = pkg('@modelcontextprotocol/*');
const NODE_PTY = pkg('node-pty');
const DEEP_CORE = area('core-room', 'core-shared');

/** What was refused, as the message shows it: the specifier, and the file it resolved to. */
const WHAT = "'{{dependency.source}}'{{#if to.file.path}}{{#unless to.module.source}} (that is {{to.file.path}}){{/unless}}{{/if}}";

// ---- Messages for the refusals that deserve their own explanation. ------------------
const M = {
  electron: `${RULE}: src/ never imports electron; ${WHAT} is refused. src/ runs headless (switchboard serve): only main/ talks to Electron.`,
  nodePty: `${RULE}: only src/core/ imports node-pty; ${WHAT} is refused. Use sessions through src/core/index.ts.`,
  deepCore: `${RULE}: outside src/core/, the core is imported only through src/core/index.ts; ${WHAT} reaches inside it. Import '…/core/index.js' instead, and export what you need from src/core/index.ts.`,
  mcpInCore: `${RULE}: src/core/ knows nothing of MCP; ${WHAT} is refused. src/mcp/ adapts the core to MCP.`,
  policyUp: `${RULE}: src/policy/ decides on a command line alone and imports no other layer; ${WHAT} is refused. The hub and src/mcp/ call decide() and act on its answer.`,
  sandboxUp: `${RULE}: src/sandbox/ plans a session's sandbox and imports no other layer; ${WHAT} is refused. The hub hands its launch wrapper to the core.`,
  upFromCore: `${RULE}: src/core/ may not import ${WHAT}: layers point one way (hub → mcp → core). Let the outer layer call the core, or move what both need into the core.`,
  entryFromCore: `${RULE}: inside src/core/, import the module you need, not the public entry; ${WHAT} is refused. src/core/index.ts is for the other layers, and importing it from a room makes a cycle.`,
  shimHub: `${RULE}: src/shim/ may import of src/hub/ only its common/ room; ${WHAT} would load the hub (and the core) into the shim.`,
  mcpCommandHub: `${RULE}: src/commands/mcp.ts runs the shim, so it may import of src/hub/ only its common/ room; ${WHAT} would load the hub (and the core) into the shim.`,
  deepHub: `${RULE}: outside src/hub/, the hub is imported only through src/hub/index.ts (a command that starts no hub may import the light rooms common/, state/ and hostConfig/ directly, so it does not load the hub); ${WHAT} reaches inside it. Import '…/hub/index.js' instead, and export what you need from src/hub/index.ts.`,
  hubComposes: `${RULE}: only src/hub/hub.ts composes the hub's rooms; ${WHAT} is refused. A room is handed what it needs (an interface it declares) by the composition root.`,
  hubCommon: `${RULE}: src/hub/common/ is what the shim loads, so it imports only node and its own files; ${WHAT} is refused. Move the piece into the room that needs it.`,
  shimCore: `${RULE}: src/shim/ loads no core and no MCP code (docs/design.md §4.4); ${WHAT} is refused. It forwards JSON-RPC lines: the hub does the work.`,
  rendererNode: `${RULE}: renderer/ runs in a sandboxed browser and never imports a Node module; ${WHAT} is refused. Ask the hub through the Bridge.`,
  rendererElectron: `${RULE}: renderer/ never imports electron; ${WHAT} is refused. The preload exposes a Bridge instead.`,
  rendererSrc: `${RULE}: renderer/ may import from src/ only src/ui-protocol/index.ts and src/terminalThemes.ts; ${WHAT} is refused. Ask the hub through the Bridge.`,
  deepProtocol: `${RULE}: outside src/ui-protocol/, the UI protocol is imported only through its entry, src/ui-protocol/index.ts; ${WHAT} reaches inside it. Import '…/ui-protocol/index.js' instead, and export what you need from it.`,
  rendererMain: `${RULE}: renderer/ never imports main/; ${WHAT} is refused. The page and main are separate builds talking over IPC (the Bridge).`,
  appNode: `${RULE}: apps/ runs in a host's sandboxed frame and never imports a Node module; ${WHAT} is refused. Ask the hub through the host's tool calls.`,
  appSrc: `${RULE}: apps/ may import from src/ only src/terminalThemes.ts; ${WHAT} is refused. Everything the view shows comes through the host's tool calls.`,
  appUi: `${RULE}: apps/ is built alone into one HTML document and imports neither main/ nor renderer/; ${WHAT} is refused. Move what both need into src/terminalThemes.ts-like plain data, or copy the few lines.`,
  appSdk: `${RULE}: apps/ may import only the types of @modelcontextprotocol/ext-apps (import type); ${WHAT} would bundle the MCP client and zod into the view. Speak JSON-RPC through apps/terminal/hostChannel.ts.`,
};

/** Catch-all message of an area: what it may import, and what was refused. */
const only = (who, allowed, advice) => `${RULE}: ${who} may import only ${allowed}; ${WHAT} is not one of them. ${advice}`;

/**
 * One area's policies, in the order the rule needs them (the last matching policy decides):
 * refuse anything with the area's message, refuse specific things with their own message,
 * then allow the area's list.
 */
function policiesFor(from, { message, refuse = [], allow, refuseAfterAllow = [] }) {
  return [
    { from, disallow: ANYTHING, message },
    ...refuse.map(([to, msg]) => ({ from, disallow: { to }, message: msg })),
    { from, allow: allow.map((to) => ({ to })) },
    ...refuseAfterAllow.map(([to, msg]) => ({ from, disallow: { to }, message: msg })),
  ];
}

const CORE_PACKAGES = [NODE, pkg('node-pty', '@xterm/headless', '@xterm/addon-serialize')];
const coreMessage = (who) =>
  only(
    who,
    'node, node-pty, @xterm/headless, @xterm/addon-serialize, src/packageInfo.ts, the shared leaves at src/core/ and the rooms below its own',
    `Room order, top to bottom: ${ROOMS.join(' → ')}.`,
  );

// Each area's policies go in an ESLint config object of their own (`files`: where the
// area's files live), so a dependency is matched against its area's few policies only.
// In flat config a later object replaces an earlier one's options for the same rule, so
// the first entry (any folder of src/core/) only speaks for a room missing from ROOMS.
const LAYERS = [
  [
    'src/core/*/**',
    [
      {
        from: area('core-room'),
        disallow: ANYTHING,
        message: `${RULE}: src/core/{{from.file.captured.room}}/ is not in the room order (ROOMS in eslint.config.js), so it may import nothing yet. Add it there, in its place, and to the rooms listed in src/core/index.ts.`,
      },
    ],
  ],
  // src/core/: each room imports only downward.
  ...ROOMS.map((name, index) => [
    `src/core/${name}/**`,
    policiesFor(room(name), {
      message: coreMessage(`src/core/${name}/`),
      refuse: [
        [
          area('core-room'),
          `${RULE}: src/core/${name}/ may import only the rooms below it (${ROOMS.slice(index + 1).join(', ') || 'none'}); ${WHAT} is not one. Room order, top to bottom: ${ROOMS.join(' → ')}; move the shared piece down instead.`,
        ],
        [area('core-entry'), M.entryFromCore],
        [area('mcp', 'policy', 'sandbox', 'hub', 'shim', 'commands', 'cli', 'ui-protocol', 'main', 'renderer'), M.upFromCore],
        [MCP_SDK, M.mcpInCore],
        [ELECTRON, M.electron],
      ],
      allow: [...CORE_PACKAGES, area('core-shared', 'package-info'), room(name, ...ROOMS.slice(index + 1))],
    }),
  ]),
  [
    'src/core/{errors,event,ids,types}.ts',
    policiesFor(area('core-shared'), {
      message: only('the shared leaves at src/core/ (errors, event, ids, types)', 'node and each other', 'Every room imports them, so they import no room.'),
      allow: [NODE, area('core-shared')],
    }),
  ],
  [
    'src/core/index.ts',
    policiesFor(area('core-entry'), {
      message: only('src/core/index.ts', "the core's own rooms and shared leaves", 'It only re-exports the public surface of the core.'),
      allow: [area('core-room', 'core-shared')],
    }),
  ],

  // src/mcp/: the core (through its entry), the policy, the MCP SDK, zod.
  [
    'src/mcp/**',
    policiesFor(area('mcp'), {
      message: only(
        'src/mcp/',
        'src/core/index.ts, src/policy/, src/packageInfo.ts, src/mcpIntroduction.ts, the MCP SDK and zod',
        'The hub composes MCP, not the other way.',
      ),
      refuse: [
        [DEEP_CORE, M.deepCore],
        [ELECTRON, M.electron],
      ],
      allow: [area('mcp', 'core-entry', 'policy', 'package-info', 'mcp-introduction'), MCP_SDK, pkg('zod')],
    }),
  ],

  // src/policy/: the person's policy (docs/design.md §2.9), a leaf layer: node, zod, the parser.
  [
    'src/policy/**',
    policiesFor(area('policy'), {
      message: only(
        'src/policy/',
        'node, zod and @vscode/tree-sitter-wasm',
        'It decides on a command line alone; the hub and src/mcp/ import it, never the other way.',
      ),
      refuse: [
        [
          area('core-entry', 'core-room', 'core-shared', 'mcp', 'sandbox', 'hub', 'hub-common', 'shim', 'commands', 'cli', 'ui-protocol', 'main', 'renderer'),
          M.policyUp,
        ],
        [ELECTRON, M.electron],
      ],
      allow: [area('policy'), NODE, pkg('zod', '@vscode/tree-sitter-wasm')],
    }),
  ],

  // src/sandbox/: the agent sandbox (docs/design.md §2.10), a leaf layer: node, zod, the library
  // it takes the proxy and the macOS profile from, and src/packageInfo.ts for its launcher script.
  [
    'src/sandbox/**',
    policiesFor(area('sandbox'), {
      message: only(
        'src/sandbox/',
        'node, zod, @anthropic-ai/sandbox-runtime and src/packageInfo.ts',
        "It plans a session's sandbox; the hub imports it, never the other way.",
      ),
      refuse: [
        [
          area('core-entry', 'core-room', 'core-shared', 'mcp', 'policy', 'hub', 'hub-common', 'shim', 'commands', 'cli', 'ui-protocol', 'main', 'renderer'),
          M.sandboxUp,
        ],
        [ELECTRON, M.electron],
        [NODE_PTY, M.nodePty],
      ],
      allow: [area('sandbox', 'package-info'), NODE, pkg('zod', '@anthropic-ai/sandbox-runtime')],
    }),
  ],

  // src/ui-protocol/: zod and its own files (renderer/ imports it).
  [
    'src/ui-protocol/**',
    policiesFor(area('ui-protocol'), {
      message: only('src/ui-protocol/', 'zod and its own files', 'renderer/ imports it, so it must stay browser-safe and pull in no other src/ module.'),
      allow: [area('ui-protocol'), pkg('zod')],
      refuseAfterAllow: [
        [
          area('ui-protocol-entry'),
          `${RULE}: inside src/ui-protocol/, import the file you need, not the entry; ${WHAT} is refused. index.ts is for the other layers, and importing it from a file it re-exports makes a cycle.`,
        ],
      ],
    }),
  ],

  // src/terminalThemes.ts: the terminal's colours, plain data the renderer and the hub share.
  [
    'src/terminalThemes.ts',
    policiesFor(area('terminal-themes'), {
      message: only('src/terminalThemes.ts', 'nothing', 'It is plain data the renderer and the hub share, so it pulls in neither Node nor the browser.'),
      allow: [],
    }),
  ],

  // src/packageInfo.ts: a leaf every Node layer may import.
  [
    'src/packageInfo.ts',
    policiesFor(area('package-info'), {
      message: only('src/packageInfo.ts', 'node', 'Every Node layer imports it, so it imports no layer.'),
      allow: [NODE],
    }),
  ],
  // src/compileCache.ts: the CLI turns it on before it loads a command.
  [
    'src/compileCache.ts',
    policiesFor(area('compile-cache'), {
      message: only('src/compileCache.ts', 'node', 'It runs before any module of a command is loaded.'),
      allow: [NODE],
    }),
  ],

  // src/mcpIntroduction.ts: what the MCP server says of itself, plain data the server and the shim share.
  [
    'src/mcpIntroduction.ts',
    policiesFor(area('mcp-introduction'), {
      message: only(
        'src/mcpIntroduction.ts',
        'nothing',
        'It is plain data src/mcp/ and the shim share, so the shim answers server/discover without loading MCP code.',
      ),
      allow: [],
    }),
  ],

  // src/hub/: rooms in one order, the composition root, the one entry.
  [
    'src/hub/**',
    [
      {
        from: area('hub'),
        disallow: ANYTHING,
        message: `${RULE}: {{from.file.path}} is neither a room in the order (HUB_ROOMS in eslint.config.js), the composition root (src/hub/hub.ts) nor the entry (src/hub/index.ts), so it may import nothing yet. Put it in a room, or add the room to HUB_ROOMS in its place.`,
      },
    ],
  ],
  ...HUB_ROOMS.filter((name) => name !== 'common').map((name, index) => [
    `src/hub/${name}/**`,
    policiesFor(hubRoom(name), {
      message: only(
        `src/hub/${name}/`,
        'its own files, the rooms of src/hub/ below it, src/core/index.ts, src/mcp/, src/policy/, src/sandbox/, src/ui-protocol/index.ts, src/packageInfo.ts, src/terminalThemes.ts, node and packages',
        `Room order, top to bottom: ${HUB_ROOMS.join(' → ')}.`,
      ),
      refuse: [
        [
          area('hub-room'),
          `${RULE}: src/hub/${name}/ may import only its own files and the rooms below it (${HUB_ROOMS.slice(index + 1).join(', ')}); ${WHAT} is not one. Room order, top to bottom: ${HUB_ROOMS.join(' → ')}; move the shared piece down, or declare an interface here that the composition root fills.`,
        ],
        [area('hub-root', 'hub-entry'), M.hubComposes],
        [DEEP_CORE, M.deepCore],
        [area('ui-protocol'), M.deepProtocol],
      ],
      allow: [
        hubRoom(...HUB_ROOMS.slice(index)),
        area('mcp', 'policy', 'sandbox', 'core-entry', 'ui-protocol-entry', 'package-info', 'terminal-themes'),
        NODE,
        ANY_PACKAGE,
      ],
      refuseAfterAllow: [
        [ELECTRON, M.electron],
        [NODE_PTY, M.nodePty],
      ],
    }),
  ]),
  [
    'src/hub/common/**',
    policiesFor(hubRoom('common'), {
      message: M.hubCommon,
      allow: [hubRoom('common'), NODE],
    }),
  ],
  [
    'src/hub/hub.ts',
    policiesFor(area('hub-root'), {
      message: only(
        'src/hub/hub.ts',
        "the hub's rooms, src/core/index.ts, src/mcp/, src/policy/, src/sandbox/, src/ui-protocol/index.ts, src/packageInfo.ts, src/terminalThemes.ts, node and packages",
        'Nothing in src/ imports src/commands/, src/cli.ts, main/ or renderer/: they depend on the hub.',
      ),
      refuse: [
        [DEEP_CORE, M.deepCore],
        [area('ui-protocol'), M.deepProtocol],
        [area('hub-entry'), M.hubComposes],
      ],
      allow: [area('hub-room', 'mcp', 'policy', 'sandbox', 'core-entry', 'ui-protocol-entry', 'package-info', 'terminal-themes'), NODE, ANY_PACKAGE],
      refuseAfterAllow: [
        [ELECTRON, M.electron],
        [NODE_PTY, M.nodePty],
      ],
    }),
  ],
  [
    'src/hub/index.ts',
    policiesFor(area('hub-entry'), {
      message: only('src/hub/index.ts', 'src/hub/hub.ts and the rooms of src/hub/', 'It only re-exports the public surface of the hub.'),
      allow: [area('hub-root', 'hub-room')],
    }),
  ],

  // src/shim/: a thin forwarder (docs/design.md §4.4).
  [
    'src/shim/**',
    policiesFor(area('shim'), {
      message: only(
        'src/shim/',
        'node, src/packageInfo.ts, src/mcpIntroduction.ts and src/hub/common/',
        'It forwards JSON-RPC lines to the hub and loads nothing else.',
      ),
      refuse: [
        [area('hub'), M.shimHub],
        [area('core-entry', 'core-room', 'core-shared', 'mcp', 'policy', 'sandbox'), M.shimCore],
        [MCP_SDK, M.shimCore],
        [ELECTRON, M.electron],
      ],
      allow: [area('shim', 'hub-common', 'package-info', 'mcp-introduction'), NODE],
    }),
  ],

  // src/commands/ and src/cli.ts: the command line.
  [
    'src/commands/**',
    policiesFor(area('commands'), {
      message: only(
        'src/commands/',
        'src/hub/index.ts (and the light rooms src/hub/common/, src/hub/state/ and src/hub/hostConfig/), src/mcp/, src/shim/, src/core/index.ts, src/packageInfo.ts, node and packages',
        'src/cli.ts dispatches to the commands, not the other way.',
      ),
      refuse: [
        [DEEP_CORE, M.deepCore],
        [area('hub'), M.deepHub],
      ],
      allow: [area('commands', 'hub-entry', 'mcp', 'shim', 'core-entry', 'package-info'), hubRoom('common', 'state', 'hostConfig'), NODE, ANY_PACKAGE],
      refuseAfterAllow: [
        [ELECTRON, M.electron],
        [NODE_PTY, M.nodePty],
      ],
    }),
  ],
  // The shim's command loads what the shim loads: of src/hub/ only its common/ room.
  [
    'src/commands/mcp.ts',
    policiesFor(area('commands'), {
      message: only(
        'src/commands/mcp.ts',
        'src/shim/, src/hub/common/, src/packageInfo.ts and node',
        'It runs the shim, which forwards lines and loads nothing else.',
      ),
      refuse: [
        [area('hub'), M.mcpCommandHub],
        [area('core-entry', 'core-room', 'core-shared', 'mcp', 'policy', 'sandbox'), M.shimCore],
        [MCP_SDK, M.shimCore],
        [ELECTRON, M.electron],
      ],
      allow: [area('shim', 'hub-common', 'package-info'), NODE],
    }),
  ],
  [
    'src/cli.ts',
    policiesFor(area('cli'), {
      message: only(
        'src/cli.ts',
        'src/commands/, src/hub/index.ts, src/mcp/, src/shim/, src/core/index.ts, src/packageInfo.ts, src/compileCache.ts, node and packages',
        'It is the outermost entry point.',
      ),
      refuse: [
        [DEEP_CORE, M.deepCore],
        [area('hub'), M.deepHub],
      ],
      allow: [area('commands', 'hub-entry', 'mcp', 'shim', 'core-entry', 'package-info', 'compile-cache'), NODE, ANY_PACKAGE],
      refuseAfterAllow: [
        [ELECTRON, M.electron],
        [NODE_PTY, M.nodePty],
      ],
    }),
  ],

  // main/: Electron only; reaches the core through the hub.
  [
    'main/**',
    policiesFor(area('main'), {
      message: only(
        'main/',
        'src/hub/index.ts, src/ui-protocol/index.ts, src/packageInfo.ts, node, electron, electron-store and zod',
        'main/ holds no business logic: it reaches the core through src/hub/index.ts (and never imports src/cli.ts, src/commands/ or renderer/).',
      ),
      refuse: [
        [area('ui-protocol'), M.deepProtocol],
        [area('hub'), M.deepHub],
      ],
      allow: [area('main', 'hub-entry', 'ui-protocol-entry', 'package-info'), NODE, pkg('electron', 'electron-store', 'zod')],
    }),
  ],

  // renderer/: browser only.
  [
    'renderer/**',
    policiesFor(area('renderer'), {
      message: only(
        'renderer/',
        'src/ui-protocol/index.ts, src/terminalThemes.ts and browser packages (@xterm/*, lit-html, zod)',
        'It talks to the hub through a Bridge.',
      ),
      refuse: [
        [NODE, M.rendererNode],
        [ELECTRON, M.rendererElectron],
        [NODE_PTY, M.rendererNode],
        [area('main'), M.rendererMain],
        [{ file: { path: 'src/**' } }, M.rendererSrc],
        [area('ui-protocol'), M.deepProtocol],
      ],
      allow: [area('renderer', 'ui-protocol-entry', 'terminal-themes'), pkg('@xterm/*', 'lit-html', 'zod')],
    }),
  ],

  // apps/: MCP Apps (docs/design.md §3.7), browser only, each built into one HTML document.
  [
    'apps/**',
    [
      ...policiesFor(area('app'), {
        message: only(
          'apps/',
          'src/terminalThemes.ts, @xterm/xterm and the types of @modelcontextprotocol/ext-apps',
          'An app reaches the hub only through its host.',
        ),
        refuse: [
          [NODE, M.appNode],
          [ELECTRON, M.appNode],
          [NODE_PTY, M.appNode],
          [area('main', 'renderer'), M.appUi],
          [{ file: { path: 'src/**' } }, M.appSrc],
          [pkg('@modelcontextprotocol/*'), M.appSdk],
        ],
        allow: [area('app', 'terminal-themes'), pkg('@xterm/xterm')],
      }),
      // The spec's message types, checked at compile time and gone from the bundle.
      { from: area('app'), allow: { to: pkg('@modelcontextprotocol/ext-apps'), dependency: { kind: 'type' } } },
    ],
  ],
];

export default defineConfig([
  globalIgnores(['dist/', 'node_modules/', 'out/', 'test-results/', '.bench-tmp/', 'coverage/']),

  tseslint.configs.recommended,

  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },

  // CommonJS build hooks (electron-builder loads them with require()).
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },

  // ---- The one-way import rule (docs/design.md §1.2). ------------------------------
  {
    files: [`src/${ANY_SOURCE}`, `main/${ANY_SOURCE}`, `renderer/${ANY_SOURCE}`, `apps/${ANY_SOURCE}`],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/elements': [],
      'boundaries/files': AREAS,
      'boundaries/legacy-templates': false,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
      'boundaries/additional-dependency-nodes': [
        // import x = require('x')
        { selector: 'TSImportEqualsDeclaration > TSExternalModuleReference > Literal', kind: 'value', name: 'import-equals' },
        // type T = import('x').T
        { selector: 'TSImportType > Literal', kind: 'type', name: 'import-type' },
      ],
      'import/resolver': { typescript: { project: path.join(import.meta.dirname, 'tsconfig.json') } },
    },
    rules: { 'boundaries/no-unknown-files': 'error' },
  },
  // `checkAllOrigins`: Node built-ins and packages are checked too; `checkUnknownLocals`: so
  // is a local file no area claims (test/, bench/, scripts/).
  ...LAYERS.map(([pattern, policies]) => ({
    files: [pattern],
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', checkAllOrigins: true, checkUnknownLocals: true, policies }],
    },
  })),
]);
