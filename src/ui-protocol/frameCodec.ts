/** A `frame` on the WebSocket: one binary message, its header as JSON, then the output's bytes as they are. */
import type { HubMessage } from './hubMessages.js';

type FrameMessage = Extract<HubMessage, { type: 'frame' }>;

/** A frame as one binary WebSocket message: a 4-byte big-endian header length, the header (JSON), the data. */
export function encodeFrame(frame: FrameMessage): Uint8Array {
  const header = textEncoder.encode(JSON.stringify({ type: frame.type, session: frame.session, seq: frame.seq, end: frame.end }));
  const message = new Uint8Array(4 + header.length + frame.data.length);
  new DataView(message.buffer).setUint32(0, header.length);
  message.set(header, 4);
  message.set(frame.data, 4 + header.length);
  return message;
}

/** The message object of a binary WebSocket message (for `parseHubMessage`), or null when it is not one. */
export function decodeFrame(message: Uint8Array): unknown {
  if (message.length < 4) return null;
  const length = new DataView(message.buffer, message.byteOffset, message.byteLength).getUint32(0);
  if (length > message.length - 4) return null;
  try {
    const header: unknown = JSON.parse(textDecoder.decode(message.subarray(4, 4 + length)));
    if (!header || typeof header !== 'object' || Array.isArray(header)) return null;
    return { ...header, data: message.subarray(4 + length) };
  } catch {
    return null;
  }
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();
