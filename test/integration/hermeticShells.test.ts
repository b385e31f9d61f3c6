/**
 * Hermetic test shells (docs/conventions.md, "How tests start shells"): the environment the suite
 * gives every test (test/integration/helpers/hermeticEnv.ts, applied by test/setup/hermeticHome.ts)
 * keeps a machine's own shell setup out. The machine here is a home whose every rc file, and every
 * file a variable points a shell at, marks that it ran and then sleeps a second; the proof is
 * that the marks are absent once each shell has opened and run a command (rc files run before a
 * shell's first prompt), not how long it took. The control shows the same machine, taken as it is,
 * running them.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyHermeticHome } from './helpers/hermeticEnv.js';
import { connectRaw, initializeRaw, removeHome, startHub, type HubProcess, type RawSocketClient } from './helpers/hubProcess.js';
import { shellPath } from './helpers/shells.js';

const machine = mkdtempSync(path.join(tmpdir(), 'sb-poisoned-machine-'));
const home = path.join(machine, 'home');
const zdotdir = path.join(machine, 'zdotdir');
const xdgConfig = path.join(machine, 'xdg-config');

/** Each rc file leaves `<marks>/<its name>`, then costs the shell a second. */
function poison(marks: string): Record<string, string> {
  const rc = (name: string): string => `touch '${path.join(marks, name)}'; sleep 1\n`;
  const files: Record<string, string> = {
    [path.join(home, '.bashrc')]: rc('bashrc'),
    [path.join(home, '.bash_profile')]: rc('bash_profile'),
    [path.join(home, '.profile')]: rc('profile'),
    [path.join(home, '.zshenv')]: rc('home-zshenv'),
    [path.join(home, '.zshrc')]: rc('home-zshrc'),
    [path.join(zdotdir, '.zshenv')]: rc('zshenv'),
    [path.join(zdotdir, '.zprofile')]: rc('zprofile'),
    [path.join(zdotdir, '.zshrc')]: rc('zshrc'),
    [path.join(zdotdir, '.zlogin')]: rc('zlogin'),
    [path.join(home, '.config', 'fish', 'config.fish')]: rc('home-config.fish'),
    [path.join(xdgConfig, 'fish', 'config.fish')]: rc('config.fish'),
    [path.join(machine, 'envrc')]: rc('ENV'),
    [path.join(machine, 'bash_env')]: rc('BASH_ENV'),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return {
    ...(process.env as Record<string, string>),
    HOME: home,
    ZDOTDIR: zdotdir,
    XDG_CONFIG_HOME: xdgConfig,
    ENV: path.join(machine, 'envrc'),
    BASH_ENV: path.join(machine, 'bash_env'),
    PROMPT_COMMAND: `touch '${path.join(marks, 'PROMPT_COMMAND')}'`,
    SHELL: shellPath('bash'),
  };
}

const hubs: HubProcess[] = [];
const clients: RawSocketClient[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
  for (const hub of hubs) {
    await hub.stop();
    removeHome(hub.home);
  }
  rmSync(machine, { recursive: true, force: true });
});

/** Opens bash, zsh, fish and sh in `hub` side by side and runs a command in each (bash also starts a non-interactive bash). */
async function openEachShell(hub: HubProcess): Promise<void> {
  const client = await connectRaw(hub.socket, hub.token);
  clients.push(client);
  await initializeRaw(client, 'hermetic-probe');
  const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const reply = await client.request('tools/call', { name, arguments: args });
    const result = reply.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text: string }[] } | undefined;
    if (!result || result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${JSON.stringify(reply)}`);
    return result.structuredContent ?? {};
  };
  await Promise.all(
    (['bash', 'zsh', 'fish', 'sh'] as const).map(async (program) => {
      const { session } = await call('open', { program });
      const command = program === 'bash' ? 'bash -c true; echo ready' : 'echo ready';
      expect(await call('execute', { session, command, timeout_ms: 20_000 })).toMatchObject({ status: 'completed', exit_code: 0, output: 'ready' });
    }),
  );
}

describe('hermetic test shells', () => {
  it("this test process runs in a home of its own with no rc file, without the machine's shell setup", () => {
    expect(process.env.HOME).toMatch(new RegExp(`^${tmpdir()}/sb-test-home-`));
    expect(readdirSync(process.env.HOME!).filter((name) => name !== '.local')).toEqual([]);
    for (const name of ['ZDOTDIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'ENV', 'BASH_ENV', 'PROMPT_COMMAND']) expect(process.env[name], name).toBeUndefined();
    expect(process.env.SHELL).toBe(shellPath('bash'));
  });

  it("the suite's environment made from a machine whose every rc file sleeps a second: bash, zsh, fish and sh open and run commands, and no rc file ran", async () => {
    const marks = mkdtempSync(path.join(machine, 'marks-'));
    const env = poison(marks);
    const made = applyHermeticHome(env, 'sb-hermetic-probe-');
    try {
      const hub = await startHub({ baseEnv: env as Record<string, string> });
      hubs.push(hub);
      await openEachShell(hub);
      expect(readdirSync(marks)).toEqual([]);
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it("control: that machine's environment taken as it is makes the same shells run those files", async () => {
    const marks = mkdtempSync(path.join(machine, 'marks-'));
    const hub = await startHub({ baseEnv: poison(marks) });
    hubs.push(hub);
    await openEachShell(hub);
    expect(readdirSync(marks).sort()).toEqual(expect.arrayContaining(['BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'bashrc', 'config.fish', 'zshrc']));
  });
});
