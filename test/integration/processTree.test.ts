/**
 * `processTree` (src/core/processes/processTable.ts), on real processes: the input probe looks
 * for a foreground group's members below their session leader instead of reading every process
 * on the machine, so the tree must hold what the whole table says is in that session: a
 * pipeline's processes (the shell's children, not the group leader's), a level down, and a
 * background job.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { listProcesses, processTree } from '../../src/core/processes/processTable.js';
import { pollUntil } from './helpers/poll.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid) process.kill(-child.pid, 'SIGKILL');
});

/** The pids of one session, from the whole process table. */
async function sessionFromTable(sid: number): Promise<number[]> {
  return [...(await listProcesses()).values()].filter((row) => row.sid === sid).map((row) => row.pid);
}

describe('processTree', () => {
  it('holds every process of a session below its leader: a pipeline a shell down and a background job', async () => {
    // A session of its own (detached: setsid), with sh as its leader; the pipeline one shell down.
    const shell = spawn('sh', ['-c', 'sh -c "sleep 600 | cat; true" & sleep 600 & wait'], { detached: true, stdio: 'ignore' });
    started.push(shell);
    const sid = shell.pid!;
    await pollUntil(async () => (await sessionFromTable(sid)).length >= 5, 'both shells, the pipeline and the background sleep to start');

    const tree = processTree(sid);
    expect(tree?.map((row) => row.pid).sort()).toEqual((await sessionFromTable(sid)).sort());
    expect(tree?.[0]?.pid).toBe(sid);
    const pids = new Set(tree?.map((row) => row.pid));
    for (const row of tree?.slice(1) ?? []) expect(pids.has(row.ppid), `${row.pid}'s parent ${row.ppid} is in the tree`).toBe(true);
  });

  it('is undefined for a process that does not exist', () => {
    expect(processTree(2 ** 22 + 1)).toBeUndefined();
  });
});
