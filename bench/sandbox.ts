/**
 * What the agent sandbox costs (docs/design.md §2.10): an agent's shell session opened to its
 * first prompt, and an `execute` in it, inside bubblewrap against the same without it, taking
 * turns in one run (A, B, A, B …) so the machine's load falls on both sides alike. The shell is
 * bash with no rc file (a temp HOME), so bubblewrap and the launcher are what differs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionManager, type CoreSettings } from '../src/core/index.js';
import { AgentSandbox, defaultSandboxSettings } from '../src/sandbox/index.js';
import { median, ms, now, percentile, ratio, type Row } from './stats.js';

const agent = { kind: 'agent', client: 'bench 1.0' } as const;

function settings(shell: string): CoreSettings {
  return {
    maxSessions: 64,
    scrollback: 1_000,
    headLines: 200,
    shell,
    login: false,
    startupTimeoutMs: 15_000,
    killWaitsMs: [2_000, 2_000],
    closeGraceMs: 500,
    quietMs: 1_500,
    allowSecretInput: false,
    secretPatterns: [],
    secretAllow: [],
    cols: 120,
    rows: 32,
  };
}

export async function sandboxCost(rows: Row[], turns: number): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-sandbox-'));
  const home = path.join(root, 'home');
  const state = path.join(root, 'state');
  fs.mkdirSync(home);
  fs.mkdirSync(state);
  const shell = '/bin/bash';
  const env = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TMPDIR: root };
  const sandbox = new AgentSandbox({ stateDir: state, settings: defaultSandboxSettings, env, logger: { warn: () => undefined } });
  if (!sandbox.availability.available) throw new Error(`no sandbox here: ${sandbox.availability.reason}`);
  const sides = {
    plain: new SessionManager({ settings: settings(shell), stateDir: null, baseEnv: env, onWarning: () => undefined }),
    sandboxed: new SessionManager({
      settings: settings(shell),
      stateDir: null,
      baseEnv: env,
      onWarning: () => undefined,
      sandbox: (request) => sandbox.plan(request),
    }),
  };
  const opened = { plain: [] as number[], sandboxed: [] as number[] };
  const echoed = { plain: [] as number[], sandboxed: [] as number[] };
  try {
    for (let turn = 0; turn < turns + 2; turn++) {
      for (const side of turn % 2 === 0 ? (['plain', 'sandboxed'] as const) : (['sandboxed', 'plain'] as const)) {
        let start = now();
        const session = await sides[side].open({ creator: agent, cwd: home });
        const openMs = now() - start;
        start = now();
        const result = await session.execute({ command: 'echo hi', timeoutMs: 10_000, maxLines: 10 });
        const echoMs = now() - start;
        if (result.output !== 'hi') throw new Error(`${side}: echo hi gave ${JSON.stringify(result.output)}`);
        if ((session.info().sandbox?.on ?? false) !== (side === 'sandboxed'))
          throw new Error(`${side}: the session's sandbox is ${JSON.stringify(session.info().sandbox)}`);
        await session.close();
        // The first two turns warm both sides up (xterm's loading, the page cache).
        if (turn >= 2) {
          opened[side].push(openMs);
          echoed[side].push(echoMs);
        }
      }
    }
  } finally {
    await Promise.all(Object.values(sides).map((manager) => manager.dispose()));
    await sandbox.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }
  rows.push(
    {
      case: `sandbox: an agent's bash session opened to its first prompt, inside bubblewrap (no rc file), median / p95 (n=${turns})`,
      value: `${ms(median(opened.sandboxed))} / ${ms(percentile(opened.sandboxed, 95))}`,
      baseline: `${ms(median(opened.plain))} / ${ms(percentile(opened.plain, 95))}: the same session without the sandbox, turns taken in between`,
      ratio: `${ratio(median(opened.sandboxed), median(opened.plain))} / ${ratio(percentile(opened.sandboxed, 95), percentile(opened.plain, 95))}`,
    },
    {
      case: '… then `echo hi` in it (the core’s `execute`), median',
      value: ms(median(echoed.sandboxed)),
      baseline: `${ms(median(echoed.plain))}: without the sandbox`,
      ratio: ratio(median(echoed.sandboxed), median(echoed.plain)),
    },
  );
}
