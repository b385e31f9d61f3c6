/**
 * The suites about sessions, run once more inside the sandbox (docs/design.md §2.10:
 * "job control, Ctrl-C, kill, awaiting-input detection, shell integration and the process table
 * work inside the sandbox exactly as outside"). With SWITCHBOARD_TEST_SANDBOX=1 (the `sandboxed`
 * project of vitest.config.ts sets it) the sessions these helpers open run in the real
 * bubblewrap sandbox, the person's sessions too: these tests are about sessions, not about who
 * gets a sandbox. Only test helpers read the variable; the hub never does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SandboxDecider } from '../../../src/core/index.js';
import { AgentSandbox, defaultSandboxSettings } from '../../../src/sandbox/index.js';

export const TEST_SANDBOX = process.env.SWITCHBOARD_TEST_SANDBOX === '1';

/** A decider that sandboxes every session (undefined outside the sandboxed run). */
export function testSandbox(stateDir: string, env: NodeJS.ProcessEnv): SandboxDecider | undefined {
  if (!TEST_SANDBOX) return undefined;
  const sandbox = new AgentSandbox({ stateDir, settings: defaultSandboxSettings, env, logger: { warn: () => undefined } });
  const availability = sandbox.availability;
  if (!availability.available) throw new Error(`SWITCHBOARD_TEST_SANDBOX=1, but no sandbox can start here: ${availability.reason}; ${availability.fix}`);
  return (request) => sandbox.plan({ ...request, creator: { kind: 'agent', client: 'sandboxed-test' }, sandbox: true });
}

/**
 * What a test that spawns its own PTY spawns: `launch` itself, or in the sandboxed run the same
 * program inside the sandbox, started as a sandboxed session starts it.
 */
export async function sandboxedLaunch(launch: {
  file: string;
  args: string[];
  env: Record<string, string>;
  shell: boolean;
  cwd: string;
}): Promise<{ file: string; args: string[]; env: Record<string, string> }> {
  if (!TEST_SANDBOX) return launch;
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-sandboxed-launch-'));
  const decide = testSandbox(state, launch.env)!;
  const plan = await decide({ creator: { kind: 'agent', client: 'sandboxed-test' }, cwd: launch.cwd, sandbox: true });
  return plan.wrapper!.wrap(launch);
}
