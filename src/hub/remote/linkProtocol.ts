/**
 * The link between two hubs (docs/design.md §4.7; docs/decisions.md, "Remotes"): after the
 * handshake lines of socketProtocol.ts, one byte stream each way — the ssh channel's stdio on the
 * person's machine, the remote hub's unix socket on the other — carries many logical streams:
 * one MCP stream per local MCP client that calls the remote, one UI-protocol stream for the
 * person's hub itself (the session list, approvals) and one per window or menu that watches or
 * acts on a remote session.
 *
 * A frame is length-prefixed, so binary output travels as it is (no base64, no escaping):
 *
 *   u32 length (of what follows, big-endian) · u8 kind · u32 stream · payload
 *
 *   OPEN     person's hub → remote   {"kind":"mcp"} | {"kind":"ui","person":true}
 *   MESSAGE  both ways               one JSON message: JSON-RPC (mcp), a ui-protocol message (ui)
 *   FRAME    remote → person's hub   a ui-protocol frame as the WebSocket carries it (encodeFrame)
 *   CLOSE    both ways               the stream ended; payload {"reason"} or empty
 *
 * Only the person's hub opens streams; ids are its own, never reused on one link. A frame longer
 * than MAX_LINK_FRAME_BYTES ends the link (never buffered without bound); so does one that does
 * not parse. Flow control is the protocols' own: MCP answers are bounded by the calls made, and
 * the UI's frames by each viewer's acks and the link's write buffer (sessionViewer.ts).
 */

export const LinkFrameKind = {
  Open: 1,
  Message: 2,
  Frame: 3,
  Close: 4,
} as const;
export type LinkFrameKind = (typeof LinkFrameKind)[keyof typeof LinkFrameKind];

/** The largest frame: a snapshot of a long scrollback, or a screenshot's PNG as base64 (16 MiB → 21.4 MiB). */
export const MAX_LINK_FRAME_BYTES = 32 * 1024 * 1024;
/** u8 kind + u32 stream. */
const FRAME_HEAD_BYTES = 5;

/** What an OPEN asks for: an MCP stream, or a UI-protocol stream (`person`: the local connection is the person's). */
export type LinkOpen = { kind: 'mcp' } | { kind: 'ui'; person: boolean };

export interface LinkFrame {
  kind: LinkFrameKind;
  stream: number;
  payload: Buffer;
}

/** One frame's bytes. */
export function encodeLinkFrame(kind: LinkFrameKind, stream: number, payload: Uint8Array | string = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const frame = Buffer.allocUnsafe(4 + FRAME_HEAD_BYTES + body.length);
  frame.writeUInt32BE(FRAME_HEAD_BYTES + body.length, 0);
  frame.writeUInt8(kind, 4);
  frame.writeUInt32BE(stream, 5);
  frame.set(body, 4 + FRAME_HEAD_BYTES);
  return frame;
}

/** The link's frames out of a byte stream, with bounded memory: a frame is held only once its length is known and allowed. */
export class LinkFrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes = MAX_LINK_FRAME_BYTES) {}

  /** Frames completed by `chunk`; throws LinkProtocolError on a frame the link cannot carry. */
  push(chunk: Buffer): LinkFrame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: LinkFrame[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const length = head.readUInt32BE(0);
      if (length < FRAME_HEAD_BYTES) throw new LinkProtocolError(`a frame of ${length} bytes is shorter than its head`);
      if (length > this.maxFrameBytes) throw new LinkProtocolError(`a frame of ${length} bytes is over the ${this.maxFrameBytes} a link carries`);
      if (this.buffered < 4 + length) break;
      const frame = this.take(4 + length);
      const kind = frame.readUInt8(4);
      if (kind < LinkFrameKind.Open || kind > LinkFrameKind.Close) throw new LinkProtocolError(`unknown frame kind ${kind}`);
      frames.push({ kind: kind as LinkFrameKind, stream: frame.readUInt32BE(5), payload: frame.subarray(4 + FRAME_HEAD_BYTES) });
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.chunks[0]!.length >= bytes) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(bytes: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const rest = joined.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return joined.subarray(0, bytes);
  }
}

/** The bytes on a link are not frames of this protocol: the link is ended, never guessed at. */
export class LinkProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkProtocolError';
  }
}
