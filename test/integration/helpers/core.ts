import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { SessionManager, type CoreSettings } from '../../../src/core/sessionManager.js';

/** Settings for tests: small, fast kill waits, the given shell. */
export function testSettings(overrides: Partial<CoreSettings> = {}): CoreSettings {
  return {
    maxSessions: 16,
    scrollback: 1_000,
    headLines: 200,
    shell: '/bin/bash',
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

/** A private HOME and state dir, so the developer's rc files never leak into a test. */
/**
 * Marks a fresh HOME as one where fish has generated its man-page completions. Otherwise every
 * interactive fish started in it runs `create_manpage_completions.py` in the background: ~25 s
 * of CPU on these machines, taken from the tests running beside it until the session ends.
 */
export function skipFishFirstRun(home: string): void {
  fs.mkdirSync(path.join(home, '.local', 'share', 'fish', 'generated_completions'), { recursive: true });
}

export function tempHome(rcFiles: Record<string, string> = {}): { home: string; stateDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-core-'));
  roots.push(root);
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  skipFishFirstRun(home);
  for (const [name, content] of Object.entries(rcFiles)) fs.writeFileSync(path.join(home, name), content);
  return { home, stateDir: path.join(root, 'state') };
}

export function createManager(options: { shell?: string; rcFiles?: Record<string, string>; settings?: Partial<CoreSettings>; env?: NodeJS.ProcessEnv } = {}): {
  manager: SessionManager;
  stateDir: string;
  home: string;
} {
  const { home, stateDir } = tempHome(options.rcFiles);
  const manager = new SessionManager({
    settings: testSettings({ shell: options.shell ?? '/bin/bash', ...options.settings }),
    stateDir,
    baseEnv: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', USER: process.env.USER ?? 'root', ...options.env },
    onWarning: () => {},
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
