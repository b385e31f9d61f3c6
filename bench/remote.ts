/**
 * What a remote costs (docs/design.md §4.7): `execute` `echo hi` on a remote's session through
 * this machine's hub and the ssh link, against the same command on the remote hub directly (its
 * own shim), taking turns in one run (A, B, A, B …) so the machine's load falls on both alike.
 * The "remote" is this machine seen through a real OpenSSH server on loopback
 * (test/integration/helpers/sshServer.ts: sshd with keys made for the run, nothing of ~/.ssh
 * read); both sides drive the same remote hub, so the link (ssh, `switchboard link`, the
 * multiplexer, the local hub's routing) is all that differs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stopHubIn } from '../test/integration/helpers/hubCleanup.js';
import { startSshServer } from '../test/integration/helpers/sshServer.js';
import { shimClient, startHub, tool, type BenchHub } from './hubProcess.js';
import { median, ms, now, percentile, ratio, type Row } from './stats.js';

/** Calls made on each side before the timed ones (both hubs' code warms up; see run.ts). */
const WARM_UP_CALLS = 300;

export async function remoteCost(rows: Row[], turns: number): Promise<void> {
  const ssh = await startSshServer();
  const hubs: BenchHub[] = [];
  const clients: { close(): Promise<void> }[] = [];
  try {
    // The remote hub first, in the state folder every ssh login there is given (SetEnv).
    // Its HOME is the login's (an empty folder): sessions may not start in its state folder.
    const remote = await startHub({ SWITCHBOARD_HOME: ssh.remoteState, HOME: ssh.home });
    hubs.push(remote);
    const localHome = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-local-'));
    fs.writeFileSync(
      path.join(localHome, 'settings.json'),
      JSON.stringify({ remotes: [{ name: 'devbox', destination: ssh.host, command: `${process.execPath} ${remote.bin}`, sshConfig: ssh.clientConfig }] }),
    );
    const local = await startHub({ SWITCHBOARD_HOME: localHome });
    hubs.push(local);
    const viaLink = await shimClient(local, 'bench-remote');
    const direct = await shimClient(remote, 'bench-direct');
    clients.push(viaLink, direct);
    // `open` waits (bounded) for the link to come up.
    const sides = {
      link: { client: viaLink, session: String((await tool(viaLink, 'open', { host: 'devbox', cwd: ssh.home })).session) },
      direct: { client: direct, session: String((await tool(direct, 'open', { cwd: ssh.home })).session) },
    };
    if (!sides.link.session.startsWith('devbox:')) throw new Error(`the remote session is ${sides.link.session}`);
    const samples = { link: [] as number[], direct: [] as number[] };
    const echo = async (side: keyof typeof sides): Promise<number> => {
      const start = now();
      const result = await tool(sides[side].client, 'execute', { command: 'echo hi', session: sides[side].session });
      const took = now() - start;
      if (result.output !== 'hi' || result.exit_code !== 0) throw new Error(`${side}: echo hi gave ${JSON.stringify(result).slice(0, 200)}`);
      return took;
    };
    for (let i = 0; i < WARM_UP_CALLS; i++) {
      await echo('link');
      await echo('direct');
    }
    for (let turn = 0; turn < turns; turn++) {
      for (const side of turn % 2 === 0 ? (['link', 'direct'] as const) : (['direct', 'link'] as const)) samples[side].push(await echo(side));
    }
    const added = median(samples.link) - median(samples.direct);
    rows.push({
      case: `remote: \`execute\` \`echo hi\` on a remote's session through this hub and the loopback ssh link, median / p95 (n=${turns}); added: ${ms(added)}`,
      value: `${ms(median(samples.link))} / ${ms(percentile(samples.link, 95))}`,
      baseline: `${ms(median(samples.direct))} / ${ms(percentile(samples.direct, 95))}: the same command on the remote hub directly (its shim), turns taken in between`,
      ratio: `${ratio(median(samples.link), median(samples.direct))} / ${ratio(percentile(samples.link, 95), percentile(samples.direct, 95))}`,
    });
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const hub of hubs.reverse()) await hub.stop().catch(() => undefined);
    // A hub `switchboard link` started there, should the one started here have gone first.
    await stopHubIn(ssh.remoteState).catch(() => undefined);
    await ssh.stop();
  }
}
