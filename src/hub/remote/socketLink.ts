import * as net from 'node:net';
import { LINK_PROTOCOL_VERSION, MAX_HANDSHAKE_BYTES, type HandshakeReply, type LinkHelloMessage, type WelcomeMessage } from '../common/socketProtocol.js';
import { LinkMux } from './linkMux.js';

/**
 * A link to this machine's own hub over its socket, signed in with its UI key: how `switchboard
 * remote` changes the `remotes` setting through the hub (the one writer of settings.json) as the
 * person. The same link a remote machine's hub gets through `switchboard link`, without ssh.
 */
export function connectSocketLink(socketPath: string, hello: LinkHelloMessage, timeoutMs = 5_000): Promise<{ mux: LinkMux; welcome: WelcomeMessage }> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new Error(`no answer from the hub within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const newline = buffered.indexOf(0x0a);
      if (newline === -1) {
        if (buffered.length > MAX_HANDSHAKE_BYTES) fail(new Error('the hub sent an over-long answer'));
        return;
      }
      socket.off('data', onData);
      let reply: Partial<HandshakeReply>;
      try {
        reply = JSON.parse(buffered.subarray(0, newline).toString('utf8')) as Partial<HandshakeReply>;
      } catch {
        return fail(new Error('the hub sent a line that is not JSON'));
      }
      if (reply.type === 'denied') {
        return fail(new Error(/^expected /.test(String(reply.reason)) ? 'the running hub is older than this switchboard and takes no links; restart it' : `the hub refused: ${String(reply.reason)}`));
      }
      if (reply.type !== 'welcome' || reply.link_protocol !== LINK_PROTOCOL_VERSION) return fail(new Error('the hub answered without taking the link'));
      clearTimeout(timer);
      socket.pause();
      const rest = buffered.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      const mux = new LinkMux(socket, socket);
      mux.onDidEnd(() => socket.destroy());
      socket.resume();
      resolve({ mux, welcome: reply as WelcomeMessage });
    };
    socket.on('data', onData);
    socket.on('error', (error) => fail(error));
    socket.on('connect', () => socket.write(`${JSON.stringify(hello)}\n`));
  });
}
