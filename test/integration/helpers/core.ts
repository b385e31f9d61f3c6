import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { buildSessionEnv } from '../../../src/core/session/sessionEnv.js';
import { SessionManager, type CoreSettings } from '../../../src/core/session/sessionManager.js';
import { TerminalSession } from '../../../src/core/session/terminalSession.js';
import type { Transcript } from '../../../src/core/transcript/transcript.js';
import type { Creator } from '../../../src/core/types.js';
import { skipFishFirstRun } from './hermeticEnv.js';
import { shellPath } from './shells.js';
import { testSandbox } from './testSandbox.js';

/** Settings for tests: small, fast kill waits, the given shell. */
export function testSettings(overrides: Partial<CoreSettings> = {}): CoreSettings {
  return {
    maxSessions: 16,
    scrollback: 1_000,
    headLines: 200,
    shell: shellPath('bash'),
    login: false,
    startupTimeoutMs: 10_000,
    killWaitsMs: [300, 300],
    closeGraceMs: 300,
    quietMs: 500,
    allowSecretInput: false,
    secretPatterns: ['*_TOKEN', '*SECRET*'],
    secretAllow: [],
    cols: 100,
    rows: 30,
    ...overrides,
  };
}

/** Every temporary root made by tempHome in this test file: removed once its tests are done. */
const roots: string[] = [];
afterAll(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** A private HOME (no rc file unless the test gives some) and state dir for a manager of its own. */
export function tempHome(rcFiles: Record<string, string> = {}): { home: string; stateDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-core-'));
  roots.push(root);
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  skipFishFirstRun(home);
  for (const [name, content] of Object.entries(rcFiles)) fs.writeFileSync(path.join(home, name), content);
  return { home, stateDir: path.join(root, 'state') };
}

export function createManager(
  options: {
    shell?: string;
    rcFiles?: Record<string, string>;
    settings?: Partial<CoreSettings>;
    env?: NodeJS.ProcessEnv;
    onWarning?: (message: string) => void;
  } = {},
): {
  manager: SessionManager;
  stateDir: string;
  home: string;
} {
  const { home, stateDir } = tempHome(options.rcFiles);
  const baseEnv = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', USER: process.env.USER ?? 'root', ...options.env };
  fs.mkdirSync(stateDir, { recursive: true });
  const manager = new SessionManager({
    settings: testSettings({ shell: options.shell ?? shellPath('bash'), ...options.settings }),
    stateDir,
    baseEnv,
    onWarning: options.onWarning ?? (() => {}),
    sandbox: testSandbox(stateDir, baseEnv),
  });
  return { manager, stateDir, home };
}

export const agent = { kind: 'agent', client: 'core-test 1.0' } as const;

/**
 * A `manager()` for a test file: each call creates a manager (private HOME and state dir), and
 * every manager is disposed after each test, so no shell outlives its test.
 */
export function managersPerTest(): {
  manager: (options?: Parameters<typeof createManager>[0]) => ReturnType<typeof createManager>;
  track: (manager: SessionManager) => void;
} {
  const managers: SessionManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.dispose()));
  });
  return {
    manager: (options = {}) => {
      const created = createManager(options);
      managers.push(created.manager);
      return created;
    },
    track: (manager) => managers.push(manager),
  };
}

/**
 * A bash session started without a manager, for tests that hand it a Transcript of their own
 * (a full disk, a slow one): 100×30, these tests' short waits, no rc files of the developer.
 */
export async function startBashSession(options: {
  id: string;
  home: string;
  creator: Creator;
  transcript: Transcript;
  onWarning: (message: string) => void;
  scrollback: number;
  headLines: number;
}): Promise<TerminalSession> {
  const { id, home, creator } = options;
  const stateRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-core-state-'));
  roots.push(stateRoot);
  const sandbox = testSandbox(stateRoot, { PATH: process.env.PATH, HOME: home });
  return TerminalSession.start({
    ...(sandbox ? { sandbox: await sandbox({ creator, cwd: home, sandbox: true }) } : {}),
    id,
    name: null,
    creator,
    shell: shellPath('bash'),
    login: false,
    cwd: home,
    env: buildSessionEnv({ sessionId: id, creator, base: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', USER: 'sb' } }),
    cols: 100,
    rows: 30,
    scrollback: options.scrollback,
    headLines: options.headLines,
    transcript: options.transcript,
    startupTimeoutMs: 10_000,
    killWaitsMs: [300, 300],
    closeGraceMs: 300,
    quietMs: 500,
    allowSecretInput: false,
    onWarning: options.onWarning,
  });
}
