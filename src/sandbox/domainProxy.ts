/**
 * The proxy of a network that is a list of domains (docs/design.md §2.10): agents' sandboxed
 * sessions have no network of their own, only this proxy, which opens a connection only to a
 * listed domain (the library's HTTP proxy, srtInternals.ts). One per hub: on Linux it listens on
 * a unix socket bound into each sandbox (a listener inside hands it their connections,
 * assets/sandbox/enter.bash); on macOS on a loopback port, the one Seatbelt lets them reach.
 */
import * as fs from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFilteringProxy, domainMatcher } from './srtInternals.js';

/** Where programs in the sandbox reach the proxy (the listener enter.bash starts). */
export const PROXY_PORT_INSIDE = 3128;

export class DomainProxy {
  /** Every connection, tunnels included (an upgraded socket is not the server's to close). */
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly folder: string | null,
    /** The unix socket (Linux), or null. */
    readonly socket: string | null,
    /** The loopback port (macOS), or null. */
    readonly port: number | null,
  ) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /**
   * Starts listening. `domains` is read at each connection: the list in force (a changed list
   * applies to every sandboxed session at its next connection).
   */
  static async start(domains: () => readonly string[], platform: NodeJS.Platform = process.platform): Promise<DomainProxy> {
    const matches = await domainMatcher();
    const server = await createFilteringProxy((_port, host) => domains().some((domain) => matches(host, domain)));
    if (platform === 'darwin') {
      await listen(server, (done) => server.listen(0, '127.0.0.1', done));
      const address = server.address();
      return new DomainProxy(server, null, null, typeof address === 'object' && address ? address.port : null);
    }
    // Its own 0700 folder, outside the hub's state folder (which sandboxes never see).
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-proxy-'));
    fs.chmodSync(folder, 0o700);
    const socket = path.join(folder, 'proxy.sock');
    await listen(server, (done) => server.listen(socket, done));
    return new DomainProxy(server, folder, socket, null);
  }

  /** The variables that point programs in a Linux sandbox at it. */
  static environment(): Record<string, string> {
    const url = `http://127.0.0.1:${PROXY_PORT_INSIDE}`;
    const direct = 'localhost,127.0.0.1,::1';
    return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: direct, no_proxy: direct };
  }

  async dispose(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    if (this.folder) fs.rmSync(this.folder, { recursive: true, force: true });
  }
}

function listen(server: Server, start: (done: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    start(() => {
      server.off('error', reject);
      resolve();
    });
  });
}
