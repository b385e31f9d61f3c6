// ESLint flat config: typescript-eslint's recommended rules (not type-aware, so
// `npm run lint` stays fast) plus the one-way import rule of DESIGN §1.
//
// The layer rule is enforced with built-in rules only (no plugin dependency):
//  - `@typescript-eslint/no-restricted-imports` for static imports, re-exports and
//    `import x = require()` (type-only imports count too: a layer may not even
//    know the types of a layer it must not depend on);
//  - `no-restricted-syntax` for dynamic `import('…')` and `require('…')` with a
//    literal specifier, so the rule cannot be dodged by a lazy import.
// Relative specifiers are not resolved by these rules, so a restriction names the
// folder a relative path reaches (`../hub/…`, `../../src/core/…`). Folder names are
// unique in this repo, which keeps that exact in practice.
//
// In flat config a later object replaces (not merges) the options of a rule an
// earlier object set for the same file, so every area below lists its complete set
// of restrictions. test/unit/importBoundaries.test.ts proves each one still fires.
import { builtinModules } from 'node:module';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const ANY_SOURCE = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}';

/** A relative specifier (`./x`, `../../x`) whose path runs through `folder`. */
const relativeInto = (folder) => `^(\\.{1,2}/)+(.+/)?(${folder})(/|$)`;
/** A relative specifier naming module `name` (with or without extension, or as a folder). */
const relativeModule = (name) => `^(\\.{1,2}/)+(.+/)?(${name})(\\.[cm]?[jt]sx?)?(/.*)?$`;

const nodeBuiltins = [...new Set(builtinModules.map((m) => m.replace(/^node:/, '').split('/')[0]))];

/** Restrictions: a regex over the import specifier and the sentence a developer reads. */
const R = {
  electron: {
    regex: '^(electron|@electron/.*)(/.*)?$',
    message: 'DESIGN §1: only main/ may import electron. src/ must run headless, without Electron.',
  },
  mainFromSrc: {
    regex: relativeInto('main|renderer'),
    message: 'DESIGN §1: src/ never imports main/ or renderer/; they depend on src/, not the other way.',
  },
  mcpSdkInCore: {
    regex: '^@modelcontextprotocol/',
    message: 'DESIGN §1 / CONVENTIONS 7: no MCP types in src/core/; src/mcp/ adapts the core to MCP.',
  },
  upFromCore: {
    regex: relativeInto('mcp|hub'),
    message: 'DESIGN §1: src/core/ may not import src/mcp/ or src/hub/ (layers point one way: hub → mcp → core).',
  },
  hubFromMcp: {
    regex: relativeInto('hub'),
    message: 'DESIGN §1: src/mcp/ may not import src/hub/ (the hub composes MCP, not the other way).',
  },
  cliFromSrc: {
    regex: relativeModule('cli'),
    message: 'DESIGN §1: nothing in src/ imports src/cli.ts; it is the outermost entry point.',
  },
  coreFromShim: {
    regex: relativeInto('core|mcp'),
    message:
      'DESIGN §1/§4: src/shim/ is a thin forwarder to the hub: it may not import src/core/ or src/mcp/ (it runs no sessions and speaks only JSON-RPC framing).',
  },
  mcpSdkInShim: {
    regex: '^@modelcontextprotocol/',
    message: 'DESIGN §1/§4: src/shim/ forwards JSON-RPC lines and never loads the MCP SDK; the hub speaks MCP.',
  },
  hubInternalsFromShim: {
    regex: '^(\\.{1,2}/)+(.+/)?hub($|/(?!(stateDir|socketProtocol|hubInfo|logger)(\\.[cm]?[jt]s)?$))',
    message:
      'DESIGN §1/§4: src/shim/ may import only the leaf modules of src/hub/ (stateDir, socketProtocol, hubInfo, logger): anything else would load the core into the shim.',
  },
  relativeFromProtocol: {
    regex: '^\\.{1,2}(/|$)',
    message:
      'DESIGN §1: src/ui-protocol.ts may import only zod (and other browser-safe packages): renderer/ imports it, so it must not pull in any other src/ module.',
  },
  nodeBuiltin: {
    regex: `^(node:.*|(${nodeBuiltins.join('|')})(/.*)?)$`,
    message: 'DESIGN §1: this code runs in a browser and never imports a Node module; go through the Bridge.',
  },
  nodePty: {
    regex: '^node-pty(/.*)?$',
    message: 'DESIGN §1: node-pty lives in src/core/ only; the UI reads sessions through the Bridge.',
  },
  srcFromRenderer: {
    regex: '^(\\.{1,2}/)+(.+/)?src/(?!ui-protocol(\\.[cm]?[jt]s)?$)',
    message: 'DESIGN §1: renderer/ may import from src/ only src/ui-protocol.ts.',
  },
  mainFromRenderer: {
    regex: relativeInto('main'),
    message: 'DESIGN §1: renderer/ never imports main/; the preload exposes a Bridge instead.',
  },
  electronInRenderer: {
    regex: '^(electron|@electron/.*)(/.*)?$',
    message: 'DESIGN §1: renderer/ is sandboxed and never imports electron; use the Bridge from the preload.',
  },
  coreFromMain: {
    regex: '^(\\.{1,2}/)+(.+/)?src/(core|mcp)(/|$)',
    message: 'DESIGN §1: main/ reaches the core only through src/hub/ (main holds no business logic).',
  },
  cliFromMain: {
    regex: '^(\\.{1,2}/)+(.+/)?src/cli(\\.[cm]?[jt]s)?$',
    message: 'DESIGN §1: main/ uses src/hub/, not the CLI.',
  },
  rendererFromMain: {
    regex: relativeInto('renderer'),
    message: 'DESIGN §1: main/ never imports renderer/ code; they are separate builds talking over IPC.',
  },
};

/** The two rules that together enforce a list of restrictions for one area. */
function boundaryRules(restrictions) {
  // esquery regex literals end at the first `/`, so spell slashes as \u002F.
  const forSelector = (regex) => regex.replaceAll('/', '\\u002F');
  return {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: restrictions.map(({ regex, message }) => ({ regex, message, caseSensitive: true })),
      },
    ],
    'no-restricted-syntax': [
      'error',
      ...restrictions.flatMap(({ regex, message }) => [
        { selector: `ImportExpression[source.value=/${forSelector(regex)}/]`, message },
        {
          selector: `CallExpression[callee.name="require"][arguments.0.value=/${forSelector(regex)}/]`,
          message,
        },
      ]),
    ],
  };
}

const SRC_ALL = [R.electron, R.mainFromSrc, R.cliFromSrc];

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

  // ---- The one-way import rule (DESIGN §1). ---------------------------------------
  { files: [`src/${ANY_SOURCE}`], rules: boundaryRules(SRC_ALL) },
  { files: [`src/core/${ANY_SOURCE}`], rules: boundaryRules([...SRC_ALL, R.upFromCore, R.mcpSdkInCore]) },
  { files: [`src/mcp/${ANY_SOURCE}`], rules: boundaryRules([...SRC_ALL, R.hubFromMcp]) },
  {
    files: [`src/shim/${ANY_SOURCE}`],
    rules: boundaryRules([...SRC_ALL, R.coreFromShim, R.mcpSdkInShim, R.hubInternalsFromShim, R.nodePty]),
  },
  {
    files: ['src/ui-protocol.{ts,mts,js,mjs}'],
    rules: boundaryRules([...SRC_ALL, R.relativeFromProtocol, R.nodeBuiltin, R.nodePty]),
  },
  {
    files: [`renderer/${ANY_SOURCE}`],
    rules: boundaryRules([R.nodeBuiltin, R.nodePty, R.electronInRenderer, R.srcFromRenderer, R.mainFromRenderer]),
  },
  {
    files: [`main/${ANY_SOURCE}`],
    rules: boundaryRules([R.coreFromMain, R.cliFromMain, R.rendererFromMain]),
  },
]);
