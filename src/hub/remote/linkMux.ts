import type { Readable, Writable } from 'node:stream';
import { EventEmitter, type Disposable, type Event } from '../../core/index.js';
import { encodeLinkFrame, LinkFrameKind, LinkFrameReader, type LinkFrame, type LinkOpen } from './linkProtocol.js';

/** One logical stream of a link: JSON messages both ways, ui-protocol frames from the remote. */
export class LinkStream {
  private closedReason: string | null = null;
  private readonly onDidMessageEmitter = new EventEmitter<string>();
  /** One message's JSON text. */
  readonly onDidMessage: Event<string> = this.onDidMessageEmitter.event;
  private readonly onDidFrameEmitter = new EventEmitter<Buffer>();
  /** One ui-protocol frame as encodeFrame wrote it. */
  readonly onDidFrame: Event<Buffer> = this.onDidFrameEmitter.event;
  private readonly onDidCloseEmitter = new EventEmitter<string>();
  /** The stream ended: the other side closed it, or the link went (why, in words). */
  readonly onDidClose: Event<string> = this.onDidCloseEmitter.event;

  constructor(
    readonly id: number,
    private readonly mux: LinkMux,
  ) {}

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** Bytes the link has not yet written out (shared by every stream of the link). */
  get bufferedBytes(): number {
    return this.mux.bufferedBytes;
  }

  send(message: unknown): void {
    if (this.closed) return;
    this.mux.write(LinkFrameKind.Message, this.id, typeof message === 'string' ? message : JSON.stringify(message));
  }

  sendFrame(bytes: Uint8Array): void {
    if (this.closed) return;
    this.mux.write(LinkFrameKind.Frame, this.id, bytes);
  }

  close(reason = 'closed'): void {
    if (this.closed) return;
    this.mux.write(LinkFrameKind.Close, this.id, JSON.stringify({ reason }));
    this.ended(reason);
  }

  /** @internal the mux's side */
  deliver(frame: LinkFrame): void {
    if (this.closed) return;
    if (frame.kind === LinkFrameKind.Message) this.onDidMessageEmitter.fire(frame.payload.toString('utf8'));
    else if (frame.kind === LinkFrameKind.Frame) this.onDidFrameEmitter.fire(frame.payload);
  }

  /** @internal the stream is over, said once. */
  ended(reason: string): void {
    if (this.closed) return;
    this.closedReason = reason;
    this.mux.forget(this.id);
    this.onDidCloseEmitter.fire(reason);
    this.onDidMessageEmitter.dispose();
    this.onDidFrameEmitter.dispose();
    this.onDidCloseEmitter.dispose();
  }
}

export interface LinkMuxOptions {
  /** The remote's side: a stream the person's hub opened, and what for. */
  onOpen?: (stream: LinkStream, open: LinkOpen) => void;
  maxFrameBytes?: number;
}

/**
 * The streams of one link over one byte stream each way (linkProtocol.ts). Only the person's hub
 * opens streams (`open`); the remote's side is told of them (`onOpen`). When the bytes end, or a
 * frame does not parse, the link is over: every stream is closed with the reason.
 */
export class LinkMux implements Disposable {
  private readonly streams = new Map<number, LinkStream>();
  private nextId = 1;
  private endedReason: string | null = null;
  private readonly reader: LinkFrameReader;
  private readonly onDidEndEmitter = new EventEmitter<string>();
  /** The link is over (why); every stream closed before this fires. */
  readonly onDidEnd: Event<string> = this.onDidEndEmitter.event;
  private readonly detach: () => void;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: LinkMuxOptions = {},
  ) {
    this.reader = new LinkFrameReader(options.maxFrameBytes);
    const onData = (chunk: Buffer): void => this.receive(chunk);
    const onEnd = (): void => this.end('the link closed');
    const onError = (error: Error): void => this.end(`the link failed: ${error.message}`);
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('close', onEnd);
    input.on('error', onError);
    output.on('error', onError);
    this.detach = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.off('error', onError);
      output.off('error', onError);
    };
  }

  get ended(): boolean {
    return this.endedReason !== null;
  }

  /** Bytes written but not yet taken by the pipe. */
  get bufferedBytes(): number {
    return this.output.writableLength;
  }

  /** A new stream (the person's hub's side). */
  open(open: LinkOpen): LinkStream {
    const stream = new LinkStream(this.nextId++, this);
    if (this.ended) {
      stream.ended(this.endedReason!);
      return stream;
    }
    this.streams.set(stream.id, stream);
    this.write(LinkFrameKind.Open, stream.id, JSON.stringify(open));
    return stream;
  }

  /** Ends the link: every stream closes with `reason`. */
  end(reason: string): void {
    if (this.ended) return;
    this.endedReason = reason;
    this.detach();
    for (const stream of [...this.streams.values()]) stream.ended(reason);
    this.streams.clear();
    if (!this.output.writableEnded) this.output.end();
    this.onDidEndEmitter.fire(reason);
    this.onDidEndEmitter.dispose();
  }

  dispose(): void {
    this.end('closed');
  }

  /** @internal */
  write(kind: LinkFrameKind, stream: number, payload: Uint8Array | string): void {
    if (this.ended || this.output.writableEnded) return;
    this.output.write(encodeLinkFrame(kind, stream, payload));
  }

  /** @internal */
  forget(id: number): void {
    this.streams.delete(id);
  }

  private receive(chunk: Buffer): void {
    let frames: LinkFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      return this.end(`the link sent what is not a link frame (${(error as Error).message})`);
    }
    for (const frame of frames) {
      if (this.ended) return;
      this.dispatch(frame);
    }
  }

  private dispatch(frame: LinkFrame): void {
    if (frame.kind === LinkFrameKind.Open) {
      let open: LinkOpen;
      try {
        open = JSON.parse(frame.payload.toString('utf8')) as LinkOpen;
      } catch {
        return this.end('the link opened a stream without saying what for');
      }
      if (!this.options.onOpen || this.streams.has(frame.stream) || (open.kind !== 'mcp' && open.kind !== 'ui')) {
        this.write(LinkFrameKind.Close, frame.stream, JSON.stringify({ reason: 'this side opens no such stream' }));
        return;
      }
      const stream = new LinkStream(frame.stream, this);
      this.streams.set(frame.stream, stream);
      this.options.onOpen(stream, open.kind === 'ui' ? { kind: 'ui', person: open.person === true } : { kind: 'mcp' });
      return;
    }
    const stream = this.streams.get(frame.stream);
    if (!stream) return; // closed on this side already: what was in flight is dropped
    if (frame.kind === LinkFrameKind.Close) {
      let reason = 'the other side closed it';
      try {
        const parsed = JSON.parse(frame.payload.toString('utf8')) as { reason?: unknown };
        if (typeof parsed.reason === 'string') reason = parsed.reason;
      } catch {
        // An empty payload: no reason given.
      }
      stream.ended(reason);
      return;
    }
    stream.deliver(frame);
  }
}
