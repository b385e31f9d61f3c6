/**
 * `switchboard link`: what the person's hub on another machine runs here over ssh (docs/design.md
 * §4.7). It bridges the ssh channel's stdio to this machine's hub socket, starting a hub when none
 * runs (as the shim does), and signs the link in with this hub's UI key, read here: the key never
 * crosses the link. After the first line it only moves bytes; the hub does the rest.
 *
 *   stdin, first line   {"type":"link","from":"laptop","name":"devbox","link_protocol":1,…}  (no key)
 *   → hub.sock          the same line with "key" added, then stdin's bytes as they come
 *   stdout              the hub's answer line (welcome or denied), then the hub's bytes
 *
 * When it cannot get that far it answers `{"type":"denied","reason":"…"}` itself and exits 1.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { readHubInfo } from '../hub/common/hubInfo.js';
import {
  HANDSHAKE_TIMEOUT_MS,
  MAX_HANDSHAKE_BYTES,
  SOCKET_FILE,
  UI_KEY_FILE,
  type DeniedMessage,
  type LinkHelloMessage,
} from '../hub/common/socketProtocol.js';
import { defaultStateDir, ensureStateDir } from '../hub/common/stateDir.js';
import { packageVersion } from '../packageInfo.js';
import { connectToHub } from '../shim/hubConnector.js';

/** A cold `serve` start, as the shim allows it (HUB_WAIT_MS). */
const HUB_WAIT_MS = 20_000;

const USAGE = `Usage: switchboard link
  Run by the person's hub on another machine, over ssh (switchboard remote add): it links that hub
  to this machine's. Not for typing: it reads a link's first line on stdin.
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.length > 0) {
    process.stderr.write(USAGE);
    return argv.includes('--help') || argv.includes('-h') ? 0 : 2;
  }
  let first: { hello: LinkHelloMessage; rest: Buffer };
  try {
    first = await readHello(process.stdin);
  } catch (error) {
    return deny((error as Error).message);
  }
  const stateDir = ensureStateDir(defaultStateDir());
  const version = packageVersion();
  try {
    // Waits for a hub, starting one when none answers; then the link's own connection.
    const aborted = new AbortController();
    const probe = await connectToHub({
      stateDir,
      version,
      launch: true,
      // Over ssh there may be no desktop session to start the app in: a headless hub.
      useApp: false,
      deadlineMs: HUB_WAIT_MS,
      signal: aborted.signal,
      events: { line: () => undefined, overflow: () => undefined, close: () => undefined },
    });
    probe.close();
  } catch (error) {
    return deny(`no Switchboard hub answers on this machine (${(error as Error).message})`);
  }
  let key: string;
  try {
    key = fs.readFileSync(path.join(stateDir, UI_KEY_FILE), 'utf8').trim();
  } catch (error) {
    return deny(`cannot read this hub's UI key (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const socketPath = readHubInfo(stateDir)?.socket ?? path.join(stateDir, SOCKET_FILE);
  return bridge(socketPath, { ...first.hello, key, client: 'switchboard-link', version }, first.rest);
}

/** The link's first line from stdin, bounded in size and time; the bytes after it are kept. */
function readHello(input: NodeJS.ReadableStream): Promise<{ hello: LinkHelloMessage; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const done = (error: Error | null, value?: { hello: LinkHelloMessage; rest: Buffer }): void => {
      clearTimeout(timer);
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
      if (error) reject(error);
      else resolve(value!);
    };
    const timer = setTimeout(() => done(new Error('no link line arrived on stdin')), HANDSHAKE_TIMEOUT_MS * 2);
    const onEnd = (): void => done(new Error('stdin ended before a link line'));
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const newline = buffered.indexOf(0x0a);
      if (newline === -1) {
        if (buffered.length > MAX_HANDSHAKE_BYTES) done(new Error('the link line is too long'));
        return;
      }
      let hello: Partial<LinkHelloMessage>;
      try {
        hello = JSON.parse(buffered.subarray(0, newline).toString('utf8')) as Partial<LinkHelloMessage>;
      } catch {
        return done(new Error("the first line on stdin is not JSON: switchboard link is run by another machine's hub, not by hand"));
      }
      if (hello?.type !== 'link') return done(new Error('the first line on stdin is not a link line'));
      done(null, { hello: hello as LinkHelloMessage, rest: buffered.subarray(newline + 1) });
    };
    input.on('data', onData);
    input.on('end', onEnd);
  });
}

/** stdin → the hub's socket, the socket → stdout, until either side ends. */
function bridge(socketPath: string, hello: LinkHelloMessage, rest: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(hello)}\n`);
      if (rest.length > 0) socket.write(rest);
      process.stdin.pipe(socket);
      process.stdin.resume();
    });
    socket.pipe(process.stdout);
    socket.on('error', (error) => {
      if (!connected) resolve(deny(`cannot reach this machine's hub at ${socketPath} (${error.message})`));
    });
    socket.on('close', () => {
      if (connected) process.stdout.end(() => resolve(0));
    });
    // The ssh channel closed: the person's hub went away or the network did.
    process.stdin.on('end', () => socket.end());
  });
}

function deny(reason: string): number {
  const denied: DeniedMessage = { type: 'denied', reason };
  process.stdout.write(`${JSON.stringify(denied)}\n`);
  process.stderr.write(`switchboard link: ${reason}\n`);
  return 1;
}
