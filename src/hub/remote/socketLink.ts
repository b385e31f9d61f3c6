import { HandshakeError, socketHandshake, type Handshake } from '../common/socketHandshake.js';
import { LINK_PROTOCOL_VERSION, type LinkHelloMessage, type WelcomeMessage } from '../common/socketProtocol.js';
import { LinkMux } from './linkMux.js';

/**
 * A link to this machine's own hub over its socket, signed in with its UI key: how `switchboard
 * remote` changes the `remotes` setting through the hub (the one writer of settings.json) as the
 * person. The same link a remote machine's hub gets through `switchboard link`, without ssh.
 */
export async function connectSocketLink(socketPath: string, hello: LinkHelloMessage, timeoutMs = 5_000): Promise<{ mux: LinkMux; welcome: WelcomeMessage }> {
  let handshake: Handshake;
  try {
    handshake = await socketHandshake(socketPath, hello, timeoutMs);
  } catch (error) {
    if (!(error instanceof HandshakeError)) throw error;
    throw new Error(linkRefusal(error));
  }
  const { socket, reply } = handshake;
  const welcome = reply as Partial<WelcomeMessage> | null;
  if (welcome?.type !== 'welcome' || welcome.link_protocol !== LINK_PROTOCOL_VERSION) {
    socket.destroy();
    throw new Error('the hub answered without taking the link');
  }
  const mux = new LinkMux(socket, socket);
  mux.onDidEnd(() => socket.destroy());
  socket.resume();
  return { mux, welcome: welcome as WelcomeMessage };
}

/** The handshake's failure in the words `switchboard remote` says it. */
function linkRefusal(error: HandshakeError): string {
  switch (error.kind) {
    case 'denied':
      // A hub older than links answers the unknown first line with "expected …".
      return /^expected /.test(String(error.reason))
        ? 'the running hub is older than this switchboard and takes no links; restart it'
        : `the hub refused: ${String(error.reason)}`;
    case 'too_long':
      return 'the hub sent an over-long answer';
    case 'not_json':
      return 'the hub sent a line that is not JSON';
    default:
      return error.error?.message ?? error.message;
  }
}
