/**
 * The macOS half of close and kill, on any platform: what `ps` and `stty` print on a Mac
 * (fixtures/, written by the rules of Apple's ps and stty sources; fixtures/README.md) read by
 * src/core/processes/macPs.ts, and the session's members chosen from it by sessionMembers.ts, so
 * a parsing bug in the Mac path turns this suite red on Linux too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  environmentValuesFromPs,
  groupWaitFromPs,
  parsePsCommands,
  parsePsTable,
  PS_ARGUMENTS_ARGS,
  PS_ENVIRONMENT_ARGS,
  PS_WAIT_ARGS,
  psTableArgs,
} from '../../../../src/core/processes/macPs.js';
import { isAlive } from '../../../../src/core/processes/processInfo.js';
import { anchorFrom, membersOf } from '../../../../src/core/processes/sessionMembers.js';
import { parseTerminalModes } from '../../../../src/core/processes/terminalWait.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

const table = parsePsTable(fixture('macos-ps-table.txt'));
const withEnvironment = fixture('macos-ps-command-env.txt');
const argumentsOnly = fixture('macos-ps-command.txt');
const HUB = 3999;

describe('the process table from ps -o pid=,ppid=,pgid=,tpgid=,stat=,tty=,lstart=', () => {
  it('asks for the columns by name with empty headers, lstart last (it holds spaces)', () => {
    expect(psTableArgs(['-ax'])).toEqual(['-ax', '-o', 'pid=,ppid=,pgid=,tpgid=,stat=,tty=,lstart=']);
    expect(psTableArgs(['-p', '4242'])).toEqual(['-p', '4242', '-o', 'pid=,ppid=,pgid=,tpgid=,stat=,tty=,lstart=']);
  });

  it('reads every row: right-aligned numbers, the first letter of stat, the tty name, lstart whole without its padding', () => {
    expect(table.size).toBe(fixture('macos-ps-table.txt').trimEnd().split('\n').length);
    expect(table.get(4242)).toEqual({
      pid: 4242,
      ppid: HUB,
      pgid: 4242,
      sid: undefined,
      tty: 'ttys003',
      tpgid: 4321,
      state: 'S',
      startTime: 'Thu Nov 28 22:28:43 2024',
    });
    expect(table.get(4322)).toMatchObject({ ppid: 4321, pgid: 4321, tpgid: 4321, state: 'S' });
    // A day under 10 is space-padded by %c: kept as printed, so one process always reads the same.
    expect(table.get(8123)?.startTime).toBe('Fri Nov  1 09:05:07 2024');
    expect(table.get(400)).toMatchObject({ tty: 'console', tpgid: 400 });
  });

  it('reads no terminal (??, tpgid 0) as none, pids wider than their 5 columns, a stopped job and a zombie', () => {
    expect(table.get(4401)).toMatchObject({ tty: '', tpgid: 0, state: 'S' });
    expect(table.get(123456)).toMatchObject({ pid: 123456, ppid: 4242, pgid: 123456, tpgid: 4321, state: 'R', tty: 'ttys003' });
    expect(table.get(98765)).toMatchObject({ pid: 98765, pgid: 98765, state: 'T' });
    expect(isAlive(table.get(4500)!)).toBe(false);
    expect(isAlive(table.get(98765)!)).toBe(true);
  });

  it('reads one process (ps -p) the same way, and an answer without rows (ps exits 1) as none', () => {
    const line = fixture('macos-ps-table.txt')
      .split('\n')
      .find((l) => l.startsWith(' 4242 '))!;
    expect(parsePsTable(`${line}\n`).get(4242)).toEqual(table.get(4242));
    expect(parsePsTable('').size).toBe(0);
  });
});

describe('the session mark from ps -E, read past the arguments', () => {
  const marks = environmentValuesFromPs('SWITCHBOARD_SESSION', table.keys(), withEnvironment, argumentsOnly);

  it('reads both the arguments and the arguments with the environment, every process, never cut', () => {
    expect(PS_ENVIRONMENT_ARGS).toEqual(['-ax', '-E', '-ww', '-o', 'pid=,command=']);
    expect(PS_ARGUMENTS_ARGS).toEqual(['-ax', '-ww', '-o', 'pid=,command=']);
    const commands = parsePsCommands(argumentsOnly);
    expect(commands.get(4242)).toBe('-bash');
    expect(commands.get(4400)).toBe('node /Users/me/My Projects/server.js --port=8080 --title=a b');
    expect(commands.get(98765)).toBe('vim notes\\tdraft.txt');
    // Far past one -w's 131 columns: with stdout not a terminal (and -ww) ps cuts nothing.
    expect(commands.get(123456)!.length).toBeGreaterThan(800);
    expect(commands.get(123456)).toMatch(/--label=SWITCHBOARD_SESSION=m2n4p6$/);
  });

  it('finds the mark in the environment of the shell, its jobs and a daemon that left the terminal', () => {
    expect(marks.get(4242)).toEqual(['k3f9q2']);
    expect(marks.get(4401)).toEqual(['k3f9q2']);
    expect(marks.get(98765)).toEqual(['k3f9q2']);
    expect(marks.get(123456)).toEqual(['k3f9q2']);
    expect(marks.get(8123)).toEqual(['k9z8y7']);
    expect(marks.get(9300)).toEqual(['m2n4p6']);
  });

  it('is not fooled by an argument " SWITCHBOARD_SESSION=…": only what follows the arguments is the environment', () => {
    // python3 -c … SWITCHBOARD_SESSION=m2n4p6 FOO=bar, started in session k3f9q2.
    expect(marks.get(4321)).toEqual(['k3f9q2']);
  });

  it('reads every entry a value imitates too, so the real one is never missed', () => {
    // NOTE="see SWITCHBOARD_SESSION=m2n4p6 too" before the real SWITCHBOARD_SESSION=k3f9q2.
    expect(marks.get(4400)).toEqual(['m2n4p6', 'k3f9q2']);
  });

  it("has none for an empty environment, a zombie, another user's process, arguments it cannot read", () => {
    for (const pid of [4322, 4500, 1, 88, 400, HUB]) expect(marks.has(pid), `pid ${pid}`).toBe(false);
  });

  it("has none for a process whose two lines disagree: it exec'd or exited between the two reads", () => {
    expect(marks.has(7777)).toBe(false); // sh -c … then sleep 100
    expect(environmentValuesFromPs('SWITCHBOARD_SESSION', [7790], withEnvironment, argumentsOnly).size).toBe(0);
  });
});

describe('what close reaches on a Mac, chosen from that table', () => {
  const marks = environmentValuesFromPs('SWITCHBOARD_SESSION', table.keys(), withEnvironment, argumentsOnly);
  const members = (sessionId: string, shellPid: number): number[] =>
    membersOf(anchorFrom(table, { sessionId, shellPid, ttyNr: undefined, hubPid: HUB, platform: 'darwin' }), table, marks, HUB).map((row) => row.pid);

  it('the shell, everything on its terminal, its jobs and the marked daemon; no zombie, no other session, never the hub or launchd', () => {
    expect(members('k3f9q2', 4242)).toEqual([4242, 4321, 4322, 4400, 4401, 7777, 98765, 123456]);
  });

  it('another session keeps its own, and one whose id an argument names does not get that process', () => {
    expect(members('k9z8y7', 8123)).toEqual([8123]);
    // 4321 names m2n4p6 only in its arguments; 4400's environment imitates the mark (documented).
    expect(members('m2n4p6', 9300)).toEqual([4400, 9300]);
  });

  it('kill aims at the foreground group the shell reports, whose live members are the job', () => {
    const shell = table.get(4242)!;
    expect(shell.tpgid).toBe(4321);
    expect([...table.values()].filter((row) => row.pgid === shell.tpgid && isAlive(row)).map((row) => row.pid)).toEqual([4321, 4322]);
  });
});

describe('the input probe from ps -A -o pgid=,wchan= and stty -f <tty> -a', () => {
  const waits = fixture('macos-ps-wchan.txt');

  it("asks for every process's group and wait channel", () => {
    expect(PS_WAIT_ARGS).toEqual(['-A', '-o', 'pgid=,wchan=']);
  });

  it("a read of the terminal (ttyin) in the group is a wait on it, whatever the group number's width", () => {
    expect(groupWaitFromPs(waits, 8123)).toBe('yes');
    expect(groupWaitFromPs(waits, 123456)).toBe('yes');
  });

  it('select and kqread may hold the terminal: they count only out of canonical mode', () => {
    expect(groupWaitFromPs(waits, 4321)).toBe('if-raw'); // python3 in select, make in wait
    expect(groupWaitFromPs(waits, 4400)).toBe('if-raw');
    expect(groupWaitFromPs(waits, 9100)).toBe('if-raw');
  });

  it("anything else is not a wait on the terminal: wait, -, an address, a cut name, another group's ttyin", () => {
    for (const pgid of [4242, 7777, 98765, 9001, 1, 55555]) expect(groupWaitFromPs(waits, pgid), `group ${pgid}`).toBe('no');
  });

  it("reads the terminal's mode from macOS stty -a: canonical with echo, raw, a password prompt", () => {
    expect(parseTerminalModes(fixture('macos-stty-a.txt'))).toEqual({ canonical: true, echo: true });
    expect(parseTerminalModes(fixture('macos-stty-a-raw.txt'))).toEqual({ canonical: false, echo: false });
    expect(parseTerminalModes(fixture('macos-stty-a-secret.txt'))).toEqual({ canonical: true, echo: false });
  });
});
