/**
 * A setting that was removed (REMOVED_SETTINGS: `ptyThread`) may still be named by a
 * settings.json or a `SWITCHBOARD_*` variable written for an earlier version: the hub starts,
 * ignores it, and says so once in its log, naming the setting and where it was set.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Hub } from '../../../../src/hub/hub.js';
import type { Logger } from '../../../../src/hub/common/logger.js';
import { testEnv } from '../../../integration/helpers/hermeticEnv.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, warn: (message) => warnings.push(message), error: (message) => warnings.push(`error: ${message}`) };
}

async function startHub(settingsFile: Record<string, unknown> | null, env: Record<string, string>): Promise<{ hub: Hub; warnings: string[] }> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-removed-'));
  cleanups.push(() => fs.rmSync(stateDir, { recursive: true, force: true }));
  if (settingsFile) fs.writeFileSync(path.join(stateDir, 'settings.json'), JSON.stringify(settingsFile));
  const logger = recordingLogger();
  const hub = await Hub.start({ stateDir, logger, env: testEnv({ SHELL: '/bin/sh', ...env }), listen: { socket: false, http: false } });
  cleanups.push(() => hub.dispose());
  return { hub, warnings: logger.warnings };
}

describe('a removed setting', () => {
  it('in settings.json and the environment: the hub starts, ignores it and logs it once', async () => {
    const { hub, warnings } = await startHub({ ptyThread: true, maxLines: 150 }, { SWITCHBOARD_PTY_THREAD: 'true' });
    expect(warnings).toEqual([expect.stringMatching(/^setting ptyThread \(in settings\.json and SWITCHBOARD_PTY_THREAD\) no longer exists and is ignored: /)]);
    // The settings it knows still apply, and the removed one is nowhere in them.
    expect(hub.settings.maxLines).toBe(150);
    expect(Object.hasOwn(hub.settings, 'ptyThread')).toBe(false);
    // Sessions open as usual.
    const session = await hub.manager.open({ creator: { kind: 'agent', client: 'test' } });
    expect(await session.execute({ command: 'echo fine', timeoutMs: 10_000, maxLines: 10 })).toMatchObject({ status: 'completed', output: 'fine' });
  });

  it('only in the environment: named as set there', async () => {
    const { warnings } = await startHub(null, { SWITCHBOARD_PTY_THREAD: 'false' });
    expect(warnings).toEqual([expect.stringMatching(/^setting ptyThread \(in SWITCHBOARD_PTY_THREAD\) no longer exists/)]);
  });

  it('nowhere: nothing is logged', async () => {
    const { warnings } = await startHub({ maxLines: 150 }, {});
    expect(warnings).toEqual([]);
  });
});
