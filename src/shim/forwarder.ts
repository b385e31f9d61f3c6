/**
 * `switchboard mcp`: a thin forwarder between an MCP host's stdio and the hub's unix socket
 * (docs/design.md §4.4). Lines from stdin go to the hub, lines from the hub go to stdout; stdout
 * carries JSON-RPC only, one message per line. The shim knows just enough JSON-RPC to:
 *
 *  - answer `server/discover` (MCP 2026-07-28) itself, at once (discover.ts): it is static;
 *  - answer what it must not forward itself: a line that is not JSON (-32700), JSON that is not
 *    a JSON-RPC 2.0 message or is a batch (-32600, with the caller's id when there is one), a
 *    line over MAX_MESSAGE_BYTES (discarded with bounded memory, one -32600);
 *  - start a hub when none answers and wait for it, bounded (HUB_WAIT_MS);
 *  - survive a hub restart: every call in flight gets an error at once (its result is unknown,
 *    so it is never resent), then, on the next call, reconnect (starting a hub if none), replay
 *    the host's saved `initialize` (its answer swallowed) and `notifications/initialized`, and
 *    forward the waiting calls. The host never has to reconnect.
 *
 * Replay rules: only `initialize` and `notifications/initialized` are ever sent twice; they
 * change nothing but the connection. An `initialize` still unanswered when the connection
 * dropped is resent (same reason). Every other request is sent at most once.
 */
import { MAX_MESSAGE_BYTES } from '../hub/common/socketProtocol.js';
import type { Logger } from '../hub/common/logger.js';
import { HubConnection } from './hubConnection.js';
import { connectToHub } from './hubConnector.js';
import {
  HUB_UNAVAILABLE,
  INVALID_REQUEST,
  classifyLine,
  errorResponse,
  idKey,
  recoverId,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../hub/common/jsonRpc.js';
import { answerDiscover, DISCOVER } from './discover.js';
import { LineReader, type OverflowedLine } from './lineReader.js';

/** How long calls wait for a hub (a cold start of `serve` included) before they get an error. */
const HUB_WAIT_MS = 10_000;
/** How long the replayed `initialize` may take before the new connection is given up. */
const REPLAY_TIMEOUT_MS = 5_000;
/** Bounds on what waits for the hub while it is down. */
const MAX_QUEUED_MESSAGES = 1_000;
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** Stdout is flushed for at most this long on the way out. */
const EXIT_FLUSH_MS = 500;

export const HUB_LOST_MESSAGE =
  "Switchboard hub stopped or restarted while this call was running; this call's result is unknown — the command may still have run; check with list/read before retrying.";

const INITIALIZE = 'initialize';
const INITIALIZED = 'notifications/initialized';
const CANCELLED = 'notifications/cancelled';
const REPLAY_ID_PREFIX = 'switchboard-shim-replay-';

interface ForwarderOptions {
  stateDir: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  logger: Logger;
  version: string;
  /** Start the installed macOS app rather than `serve` (only for the default state dir). */
  useApp: boolean;
  hubWaitMs?: number;
}

interface Outgoing {
  line: string;
  bytes: number;
  /** Set for requests (they expect an answer). */
  id?: JsonRpcId;
  method?: string;
}

interface Queued extends Outgoing {
  timer?: NodeJS.Timeout;
}

export class ShimForwarder {
  private readonly hubWaitMs: number;
  private hub: HubConnection | null = null;
  /** Connected, and the replayed initialize (if any) answered: calls may flow. */
  private ready = false;
  private connecting: AbortController | null = null;
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  /** Host requests sent to the current hub and not yet answered, by idKey. */
  private readonly inFlight = new Map<string, Outgoing>();
  /** Hub → host requests (ping, elicitation, …) the current hub waits on, by idKey. */
  private readonly hubRequests = new Set<string>();
  private savedInitialize: JsonRpcRequest | null = null;
  private initializeAnswered = false;
  private savedInitialized: string | null = null;
  private replayId: string | null = null;
  private replayTimer: NodeJS.Timeout | null = null;
  private replays = 0;
  private stopped = false;
  private inputPaused = false;
  private hubPaused = false;
  private finish: ((code: number) => void) | null = null;
  private readonly done: Promise<number>;

  constructor(private readonly options: ForwarderOptions) {
    this.hubWaitMs = options.hubWaitMs ?? HUB_WAIT_MS;
    this.done = new Promise<number>((resolve) => (this.finish = resolve));
  }

  /** Serves until stdin ends or `stop` is called; resolves with the exit code. */
  run(): Promise<number> {
    const { input, output } = this.options;
    const reader = new LineReader(MAX_MESSAGE_BYTES, {
      line: (text) => this.onHostLine(text),
      overflow: (line) => this.onHostOverflow(line),
    });
    input.on('data', (data: Buffer | string) => reader.push(typeof data === 'string' ? Buffer.from(data) : data));
    input.once('end', () => {
      reader.end();
      this.stop('stdin closed');
    });
    input.once('close', () => this.stop('stdin closed'));
    input.on('error', () => this.stop('stdin error'));
    output.on('error', () => this.stop('stdout closed'));
    // Start (or find) the hub now: the host's initialize follows at once.
    this.ensureConnecting();
    return this.done;
  }

  /**
   * Leaves at once: closes the hub socket without a word (a host going away is not a
   * cancellation; its commands go on in the hub), flushes stdout briefly, resolves `run`.
   */
  stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.options.logger.info(`stopping (${reason})`);
    this.connecting?.abort();
    this.connecting = null;
    this.clearReplay();
    this.hub?.close();
    this.hub = null;
    for (const item of this.queue) if (item.timer) clearTimeout(item.timer);
    this.queue.length = 0;
    this.options.input.pause?.();
    const exit = (): void => this.finish?.(0);
    const timer = setTimeout(exit, EXIT_FLUSH_MS);
    timer.unref();
    this.options.output.write('', () => {
      clearTimeout(timer);
      exit();
    });
  }

  // ---- host → hub ------------------------------------------------------------------------

  private onHostLine(line: string): void {
    if (this.stopped || line.trim() === '') return;
    const classified = classifyLine(line);
    const bytes = Buffer.byteLength(line);
    switch (classified.kind) {
      case 'invalid':
        for (const reply of classified.replies) this.reply(reply);
        return;
      case 'request': {
        const { id, method } = classified.message;
        if (method === DISCOVER) {
          // Static: answered at once, whether or not a hub is up yet (discover.ts).
          const answer = answerDiscover(classified.message, this.options.version);
          if (answer) return this.reply(answer);
        }
        if (method === INITIALIZE) {
          this.savedInitialize = classified.message;
          this.initializeAnswered = false;
        }
        this.deliver({ line, bytes, id, method });
        return;
      }
      case 'notification': {
        const { method } = classified.message;
        if (method === INITIALIZED) {
          this.savedInitialized = line;
          // While the hub is down, the replay after reconnecting sends it.
          if (this.ready) this.sendToHub({ line, bytes });
          return;
        }
        if (method === CANCELLED && this.cancelQueued(classified.message.params)) return;
        this.deliver({ line, bytes });
        return;
      }
      case 'response': {
        const id = classified.message.id;
        const key = id === null ? null : idKey(id);
        // Answers go to the hub that asked, even while the replay is still under way.
        if (this.hub && key !== null && this.hubRequests.delete(key)) {
          this.sendToHub({ line, bytes });
        } else {
          this.options.logger.info('dropped an answer to a request of a hub connection that is gone');
        }
        return;
      }
    }
  }

  private onHostOverflow(line: OverflowedLine): void {
    if (this.stopped) return;
    const id = recoverId(line.head, line.tail);
    this.options.logger.warn(`discarded a ${line.bytes}-byte line from the host (limit ${MAX_MESSAGE_BYTES} bytes)`);
    this.reply(
      errorResponse(
        id,
        INVALID_REQUEST,
        `Invalid Request: the message is ${line.bytes} bytes, over the ${MAX_MESSAGE_BYTES}-byte limit; it was discarded and nothing was run.`,
      ),
    );
  }

  /** A `notifications/cancelled` for a call still waiting for the hub: drop both, quietly. */
  private cancelQueued(params: unknown): boolean {
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
    const index = this.queue.findIndex((item) => item.id !== undefined && idKey(item.id) === idKey(requestId));
    if (index === -1) {
      // Not queued: pass it on only if the current hub has that call; otherwise it is moot.
      return !this.inFlight.has(idKey(requestId));
    }
    this.unqueue(index);
    return true;
  }

  private deliver(message: Outgoing): void {
    if (this.ready) {
      this.sendToHub(message);
      return;
    }
    if (this.queue.length >= MAX_QUEUED_MESSAGES || this.queuedBytes + message.bytes > MAX_QUEUED_BYTES) {
      if (message.id !== undefined) {
        this.reply(
          errorResponse(
            message.id,
            HUB_UNAVAILABLE,
            'Switchboard hub is not connected and too many calls are waiting for it; this call was not sent. Retry shortly.',
          ),
        );
      }
      return;
    }
    const queued: Queued = { ...message };
    if (message.id !== undefined) {
      // Belt and braces: whatever happens to the connection, a waiting call hears back in time.
      queued.timer = setTimeout(() => {
        const index = this.queue.indexOf(queued);
        if (index === -1) return;
        this.unqueue(index);
        this.reply(
          errorResponse(
            message.id ?? null,
            HUB_UNAVAILABLE,
            `Switchboard hub did not answer within ${Math.round(this.hubWaitMs / 1000)} s; this call was not sent. Retry, or start the hub (\`switchboard serve\` or the app).`,
          ),
        );
      }, this.hubWaitMs);
    }
    this.queue.push(queued);
    this.queuedBytes += message.bytes;
    this.ensureConnecting();
  }

  private unqueue(index: number): Queued | undefined {
    const [item] = this.queue.splice(index, 1);
    if (!item) return undefined;
    if (item.timer) clearTimeout(item.timer);
    this.queuedBytes -= item.bytes;
    return item;
  }

  private sendToHub(message: Outgoing): void {
    const hub = this.hub;
    if (!hub) return;
    if (message.id !== undefined) this.inFlight.set(idKey(message.id), message);
    if (!hub.send(message.line) && !this.inputPaused) {
      // The hub reads slower than the host writes: stop reading stdin until it catches up.
      this.inputPaused = true;
      this.options.input.pause?.();
      hub.onDrain(() => {
        this.inputPaused = false;
        if (!this.stopped) this.options.input.resume?.();
      });
    }
  }

  // ---- hub → host ------------------------------------------------------------------------

  private onHubLine(line: string): void {
    if (this.stopped || line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.options.logger.warn('the hub sent a line that is not JSON; dropped it');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.options.logger.warn('the hub sent something that is not a JSON-RPC message; dropped it');
      return;
    }
    const record = message as Record<string, unknown>;
    const id = record.id;
    const hasId = typeof id === 'string' || typeof id === 'number';
    if (typeof record.method === 'string') {
      if (hasId) this.hubRequests.add(idKey(id));
      this.write(line);
      return;
    }
    if (hasId) {
      if (id === this.replayId) {
        this.onReplayAnswered(record as unknown as JsonRpcResponse);
        return;
      }
      const sent = this.inFlight.get(idKey(id));
      this.inFlight.delete(idKey(id));
      if (sent?.method === INITIALIZE && !('error' in record)) this.initializeAnswered = true;
    }
    this.write(line);
  }

  private onHubOverflow(line: OverflowedLine): void {
    const id = recoverId(line.head, line.tail);
    this.options.logger.warn(`the hub sent a ${line.bytes}-byte message; dropped it`);
    if (id === null || !this.inFlight.delete(idKey(id))) return;
    this.reply(errorResponse(id, HUB_UNAVAILABLE, `The answer to this call was ${line.bytes} bytes, too large to pass on; ask for less (max_lines, limit).`));
  }

  private write(line: string): void {
    if (this.stopped) return;
    if (!this.options.output.write(`${line}\n`) && !this.hubPaused) {
      // The host reads slower than the hub answers: stop reading the socket until it catches up.
      const hub = this.hub;
      this.hubPaused = true;
      hub?.pause();
      this.options.output.once('drain', () => {
        this.hubPaused = false;
        hub?.resume();
      });
    }
  }

  private reply(response: JsonRpcResponse): void {
    this.write(JSON.stringify(response));
  }

  // ---- the connection --------------------------------------------------------------------

  private ensureConnecting(): void {
    if (this.stopped || this.hub || this.connecting) return;
    const controller = new AbortController();
    this.connecting = controller;
    const { logger } = this.options;
    connectToHub({
      stateDir: this.options.stateDir,
      version: this.options.version,
      launch: true,
      useApp: this.options.useApp,
      deadlineMs: this.hubWaitMs,
      signal: controller.signal,
      onLaunch: (description) => logger.warn(`no hub answered; started one: ${description}`),
      events: {
        line: (text) => this.onHubLine(text),
        overflow: (line) => this.onHubOverflow(line),
        close: () => this.onHubLost(),
      },
    }).then(
      (hub) => {
        if (this.connecting !== controller || this.stopped) {
          hub.close();
          return;
        }
        this.connecting = null;
        this.onConnected(hub);
      },
      (error: unknown) => {
        if (this.connecting !== controller || this.stopped) return;
        this.connecting = null;
        const reason = (error as Error).message;
        logger.warn(`hub unavailable: ${reason}`);
        this.failQueued(`Switchboard hub unavailable: ${reason}. This call was not sent; retry, or start the hub (\`switchboard serve\` or the app).`);
      },
    );
  }

  private onConnected(hub: HubConnection): void {
    this.hub = hub;
    this.options.logger.info(`connected to the hub (pid ${hub.hubPid}, version ${hub.hubVersion})`);
    const saved = this.savedInitialize;
    if (!saved || !this.initializeAnswered) {
      this.becomeReady();
      return;
    }
    // A new hub: introduce the host again, exactly as it introduced itself; swallow the answer.
    this.replays += 1;
    this.replayId = `${REPLAY_ID_PREFIX}${this.replays}`;
    hub.send(JSON.stringify({ ...saved, id: this.replayId }));
    this.replayTimer = setTimeout(() => {
      this.options.logger.warn(`the hub did not answer the replayed initialize within ${REPLAY_TIMEOUT_MS} ms; reconnecting`);
      hub.close();
      this.onHubLost();
    }, REPLAY_TIMEOUT_MS);
  }

  private onReplayAnswered(response: JsonRpcResponse): void {
    this.clearReplay();
    if (response.error) {
      this.options.logger.warn(`the hub refused the replayed initialize: ${response.error.message}`);
    }
    if (this.savedInitialized) this.hub?.send(this.savedInitialized);
    this.becomeReady();
  }

  private clearReplay(): void {
    if (this.replayTimer) clearTimeout(this.replayTimer);
    this.replayTimer = null;
    this.replayId = null;
  }

  private becomeReady(): void {
    this.ready = true;
    while (this.ready && this.queue.length > 0) {
      const item = this.unqueue(0);
      if (item) this.sendToHub(item);
    }
  }

  /** The socket closed under us: answer every call in flight now, never resend one. */
  private onHubLost(): void {
    if (this.stopped) return;
    const lost = this.hub;
    this.hub = null;
    this.ready = false;
    this.clearReplay();
    lost?.close();
    if (this.inputPaused) {
      // A dead socket never drains: read stdin again (what arrives now waits in the bounded queue).
      this.inputPaused = false;
      this.options.input.resume?.();
    }
    this.options.logger.warn('lost the connection to the hub; calls in flight were answered with an error');
    const resend: Outgoing[] = [];
    for (const sent of this.inFlight.values()) {
      if (sent.id === undefined) continue;
      // initialize changes nothing but the connection: resending it is safe and keeps the host's handshake alive.
      if (sent.method === INITIALIZE) resend.push(sent);
      else this.reply(errorResponse(sent.id, HUB_UNAVAILABLE, HUB_LOST_MESSAGE));
    }
    this.inFlight.clear();
    this.hubRequests.clear();
    for (const message of resend) this.deliver(message);
    // Reconnect when the host next needs the hub (now, if something waits): a hub the person
    // stopped is not started again behind their back until an agent asks for it.
    if (this.queue.length > 0) this.ensureConnecting();
  }

  private failQueued(message: string): void {
    while (this.queue.length > 0) {
      const item = this.unqueue(0);
      if (item?.id !== undefined) this.reply(errorResponse(item.id, HUB_UNAVAILABLE, message));
    }
  }
}
