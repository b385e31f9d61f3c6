/**
 * Agents' sessions never leave the agent in an editor or pager (docs/design.md §2.2): a real
 * `switchboard serve` whose person has vim as editor and less as pager everywhere
 * they can be set (the login environment, ~/.bash_profile, ~/.gitconfig's core.editor,
 * sequence.editor and core.pager), the official MCP client over HTTP as the agent, real git and
 * man in real bash sessions; the person's own session through the UI bridge keeps vim. Without
 * the defaults each git command below opens vim or less and `execute` answers `awaiting_input`.
 * Runs against dist/: `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubMessage } from '../../src/ui-protocol/index.js';
import { removeHome, startHub, type HubProcess } from './helpers/hubProcess.js';
import { toolAnswer, type ToolAnswer } from './helpers/toolAnswer.js';
import { personCookie, UiClient } from './helpers/uiClient.js';

/** Variables that would decide the outcome if the environment the test runs in set them. */
const INHERITED = /^(GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_MERGE_AUTOEDIT|GIT_PAGER|GIT_CONFIG.*|GH_PAGER|PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|LESS)$/;

const person = mkdtempSync(path.join(tmpdir(), 'sb-agentenv-person-'));
const work = mkdtempSync(path.join(tmpdir(), 'sb-agentenv-work-'));
let hub: HubProcess;
let agent: Client;
const uis: UiClient[] = [];

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return toolAnswer(await agent.callTool({ name, arguments: args }));
}

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await call(name, args);
  if (answer.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${answer.text}`);
  return answer.sc;
}

/** git in the test's own process, as the person (their HOME, so their gitconfig), for setting repositories up. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: personEnv(), encoding: 'utf8' });
}

function personEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!INHERITED.test(key)) env[key] = value;
  return { ...env, HOME: person, GIT_CONFIG_NOSYSTEM: '1', EDITOR: 'vim', VISUAL: 'vim' };
}

/** A repository with `commits` commits of one file each, on main. */
function repository(name: string, commits: number): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  for (let i = 1; i <= commits; i++) {
    writeFileSync(path.join(dir, `f${i}.txt`), `${i}\n`);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', `commit number ${i}`);
  }
  return dir;
}

beforeAll(async () => {
  // The person's editor and pager, everywhere a person sets them.
  writeFileSync(
    path.join(person, '.gitconfig'),
    '[user]\n\tname = Person\n\temail = person@example.com\n[core]\n\teditor = vim\n\tpager = less\n[sequence]\n\teditor = vim\n[advice]\n\tdetachedHead = false\n',
  );
  writeFileSync(path.join(person, '.bash_profile'), 'export PAGER=less\n');
  const hubEnv: Record<string, string> = { HOME: person, GIT_CONFIG_NOSYSTEM: '1', EDITOR: 'vim', VISUAL: 'vim' };
  hub = await startHub({ env: hubEnv, without: Object.keys(process.env).filter((key) => INHERITED.test(key)) });
  agent = new Client({ name: 'agent-env-test', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${hub.port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${hub.token}` } } }),
  );
});

afterAll(async () => {
  for (const ui of uis) ui.close();
  await agent?.close();
  if (hub) {
    await hub.stop();
    removeHome(hub.home);
  }
  rmSync(person, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe("agents' sessions: no editor or pager waits on the agent", () => {
  it("get the defaults over the person's editor and pager (login environment and ~/.bash_profile alike for the git variables)", async () => {
    const { session } = await ok('open', { cwd: work });
    const shown = await ok('execute', {
      session,
      command: `printf '[%s]' "$GIT_EDITOR" "$GIT_SEQUENCE_EDITOR" "$GIT_MERGE_AUTOEDIT" "$GIT_PAGER" "$GH_PAGER" "$MANPAGER" "\${SYSTEMD_PAGER-unset}" "$EDITOR" "$VISUAL"; echo`,
    });
    expect(shown).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(shown.output).toBe('[true][true][no][cat][cat][cat][][true][true]');
    // ~/.bash_profile runs after the session's environment is made: what it exports wins.
    expect((await ok('execute', { session, command: 'echo "pager=$PAGER"' })).output).toBe('pager=less');
  });

  it("`git commit` without -m ends at once, non-zero, with git's message about the empty message; nothing is committed", async () => {
    const repo = repository('commit', 1);
    writeFileSync(path.join(repo, 'staged.txt'), 'staged\n');
    git(repo, 'add', 'staged.txt');
    const { session } = await ok('open', { cwd: repo });
    const result = await ok('execute', { session, command: 'git commit' });
    expect(result, String(result.output)).toMatchObject({ status: 'completed' });
    expect(result.exit_code).not.toBe(0);
    expect(result.output).toContain('Aborting commit due to empty commit message');
    expect(git(repo, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
    expect(git(repo, 'diff', '--cached', '--name-only').trim()).toBe('staged.txt');
  });

  it('`git log` of many commits returns all of it, unpaged, though core.pager and $PAGER are less', async () => {
    const repo = repository('log', 60);
    const { session } = await ok('open', { cwd: repo, rows: 24 });
    const result = await ok('execute', { session, command: 'git log --format=%s' });
    expect(result, String(result.output)).toMatchObject({ status: 'completed', exit_code: 0, total_lines: 60 });
    const lines = String(result.output).split('\n');
    expect(lines[0]).toBe('commit number 60');
    expect(lines.at(-1)).toBe('commit number 1');
  });

  it('`git rebase -i HEAD~2` runs the plan as proposed though sequence.editor is vim', async () => {
    const repo = repository('rebase', 3);
    const before = git(repo, 'log', '--format=%s').trim();
    const { session } = await ok('open', { cwd: repo });
    const result = await ok('execute', { session, command: 'git rebase -i HEAD~2' });
    expect(result, String(result.output)).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(result.output).toContain('Successfully rebased');
    expect(git(repo, 'log', '--format=%s').trim()).toBe(before);
    expect(git(repo, 'status', '--porcelain').trim()).toBe('');
  });

  it("`git merge` of a diverged branch commits with git's default message, no editor", async () => {
    const repo = repository('merge', 1);
    git(repo, 'checkout', '-q', '-b', 'feature');
    writeFileSync(path.join(repo, 'feature.txt'), 'feature\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'on feature');
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(path.join(repo, 'main.txt'), 'main\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'on main');
    const { session } = await ok('open', { cwd: repo });
    const result = await ok('execute', { session, command: 'git merge feature' });
    expect(result, String(result.output)).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(git(repo, 'log', '-1', '--format=%s%n%p').trim().split('\n')).toEqual(["Merge branch 'feature'", expect.stringMatching(/^[0-9a-f]+ [0-9a-f]+$/)]);
  });

  it('`git commit --amend` keeps the message, and `man git` prints the whole page, unpaged', async () => {
    const repo = repository('amend', 1);
    writeFileSync(path.join(repo, 'more.txt'), 'more\n');
    git(repo, 'add', '.');
    const { session } = await ok('open', { cwd: repo, rows: 24 });
    const amended = await ok('execute', { session, command: 'git commit --amend' });
    expect(amended, String(amended.output)).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(git(repo, 'log', '--format=%s').trim()).toBe('commit number 1');
    const man = await ok('execute', { session, command: 'man git' });
    expect(man, String(man.output).slice(0, 300)).toMatchObject({ status: 'completed', exit_code: 0 });
    expect(Number(man.total_lines)).toBeGreaterThan(24);
    expect(man.output).toMatch(/GIT\(1\)/);
  });
});

describe("the person's sessions and the person's say", () => {
  it("a session the person opens keeps the person's editor and pager: no GIT_EDITOR, EDITOR=vim", async () => {
    const ui = await UiClient.connect(hub, await personCookie(hub));
    uis.push(ui);
    const opened = await ui.request({ type: 'openTerminal', cols: 120, rows: 30 });
    expect(opened).toMatchObject({ type: 'done', for: 'openTerminal' });
    const id = opened.type === 'done' ? opened.session! : '';
    const from = ui.mark();
    ui.send({ type: 'subscribe', session: id });
    await ui.waitFor((m: HubMessage) => m.type === 'snapshot' && m.session === id, 'snapshot', { from });
    // The marker is printed, not typed: the echo of the command line cannot match it.
    ui.send({
      type: 'input',
      session: id,
      data: `printf '<%s>' "\${GIT_EDITOR-unset}" "\${GIT_PAGER-unset}" "\${GIT_SEQUENCE_EDITOR-unset}" "$EDITOR" "$VISUAL"; printf '%s\\n' ' person-env'\r`,
    });
    await ui.waitForText(id, '<unset><unset><unset><vim><vim> person-env', from);
    expect(await ui.request({ type: 'close', session: id })).toMatchObject({ type: 'done' });
  });

  it("the agentEnv setting goes over the defaults (NAME=value sets, NAME alone keeps the person's value), and an agent's own open env over both; a wrong entry is refused, saying why", async () => {
    const ui = await UiClient.connect(hub, await personCookie(hub));
    uis.push(ui);
    for (const [entry, says] of [
      ['1EDITOR=vim', /agentEnv\.0.*NAME=value/],
      ['BASH_ENV=/tmp/x', /BASH_ENV cannot be set/],
    ] as const) {
      const refused = await ui.request({ type: 'setSettings', changes: { agentEnv: [entry] } });
      expect(refused).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT' });
      expect(refused.type === 'error' ? refused.message : '').toMatch(says);
    }
    expect(await ui.request({ type: 'setSettings', changes: { agentEnv: ['GIT_PAGER=less -R', 'EDITOR', 'FROM_SETTING=a=b'] } })).toMatchObject({
      type: 'done',
    });
    try {
      const { session } = await ok('open', { cwd: work });
      const shown = await ok('execute', { session, command: `printf '[%s]' "$GIT_PAGER" "$EDITOR" "$VISUAL" "$GIT_EDITOR" "$FROM_SETTING"; echo` });
      expect(shown.output).toBe('[less -R][vim][true][true][a=b]');
      const own = await ok('open', { cwd: work, env: { GIT_PAGER: 'more', EDITOR: 'nano' } });
      expect((await ok('execute', { session: own.session, command: `printf '[%s]' "$GIT_PAGER" "$EDITOR"; echo` })).output).toBe('[more][nano]');
    } finally {
      expect(await ui.request({ type: 'setSettings', changes: { agentEnv: null } })).toMatchObject({ type: 'done' });
    }
  });
});
