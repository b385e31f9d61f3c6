/**
 * The second run of the session suites is really inside the sandbox (vitest.config.ts, project
 * `sandboxed`): a session the test helpers open there sees bubblewrap as its pid 1 and an empty
 * state folder; in the default run it sees the machine.
 */
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agent, managersPerTest } from './helpers/core.js';
import { TEST_SANDBOX } from './helpers/testSandbox.js';

const { manager } = managersPerTest();

describe(`sessions of the test helpers (${TEST_SANDBOX ? 'sandboxed' : 'default'} run)`, () => {
  it(TEST_SANDBOX ? 'run inside the sandbox' : 'run outside any sandbox', async () => {
    const { manager: m, home, stateDir } = manager();
    const session = await m.open({ creator: agent, cwd: home });
    expect(session.info().sandbox?.on).toBe(TEST_SANDBOX);
    const pid1 = await session.execute({ command: 'tr "\\0" " " < /proc/1/cmdline; echo', timeoutMs: 10_000, maxLines: 10 });
    if (TEST_SANDBOX) expect(pid1.output).toMatch(/^\S*bwrap /);
    else expect(pid1.output).not.toMatch(/bwrap/);
    // The state folder (the session's transcript is in it) is hidden inside the sandbox.
    expect(fs.readdirSync(stateDir)).toContain('sessions');
    const listing = await session.execute({ command: `ls -A ${stateDir} | wc -l`, timeoutMs: 10_000, maxLines: 10 });
    expect(Number(listing.output) === 0).toBe(TEST_SANDBOX);
  });
});
