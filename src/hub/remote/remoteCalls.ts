import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/server';
import { ErrorCode, SwitchboardError, type Disposable } from '../../core/index.js';
import type { RemoteCaller } from '../../mcp/toolHost.js';
import { LinkMux, type LinkStream } from './linkMux.js';

/** The MCP revision spoken on a link's agent streams: a 2025 one every hub of this link protocol serves. */
const PROTOCOL_VERSION = '2025-06-18';
/** The remote answers `initialize` at once; past this the stream is taken for lost. */
const INITIALIZE_TIMEOUT_MS = 15_000;

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
  progress?: (progress: number, message?: string) => void;
}

/**
 * One of this hub's MCP connections, as an agent of the remote (docs/design.md §4.7): an MCP stream
 * over the link, opened on its first call with the client's own name and `version via <this
 * machine>` (the remote's policy rules on `client`, its grants, cursors and audit know who called),
 * carrying calls, progress and cancellations.
 */
class AgentStream {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly progressOf = new Map<string, number>();
  readonly ready: Promise<void>;
  closedWhy: string | undefined;

  constructor(
    private readonly stream: LinkStream,
    client: { name: string; version: string },
  ) {
    stream.onDidMessage((text) => this.receive(text));
    stream.onDidClose((why) => {
      this.closedWhy = why;
      const waiting = [...this.waiting.values()];
      this.waiting.clear();
      for (const call of waiting) call.reject(new LinkDropped(why));
    });
    this.ready = this.initialize(client);
  }

  get closed(): boolean {
    return this.stream.closed;
  }

  request(method: string, params: Record<string, unknown>, progress?: Waiting['progress']): { id: number; answer: Promise<unknown> } {
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      if (this.stream.closed) return reject(new LinkDropped(this.closedWhy ?? 'the link closed'));
      const entry: Waiting = { resolve, reject, ...(progress ? { progress } : {}) };
      this.waiting.set(id, entry);
      if (progress) this.progressOf.set(progressToken(id), id);
      const meta = progress ? { _meta: { progressToken: progressToken(id) } } : {};
      this.stream.send({ jsonrpc: '2.0', id, method, params: { ...params, ...meta } });
    });
    void answer.then(
      () => this.progressOf.delete(progressToken(id)),
      () => this.progressOf.delete(progressToken(id)),
    );
    return { id, answer };
  }

  /** The call is cancelled here: the remote stops waiting (and an `execute` interrupts its command), as for its own agents. */
  cancel(id: number, reason: string): void {
    const entry = this.waiting.get(id);
    if (!entry) return;
    this.waiting.delete(id);
    this.stream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
    entry.reject(new CallCancelled());
  }

  close(): void {
    this.stream.close('the agent disconnected');
  }

  private async initialize(client: { name: string; version: string }): Promise<void> {
    const { id, answer } = this.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: client });
    const timer = setTimeout(() => this.waiting.get(id)?.reject(new LinkDropped('the remote did not answer initialize')), INITIALIZE_TIMEOUT_MS);
    try {
      await answer;
    } finally {
      clearTimeout(timer);
    }
    this.stream.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  private receive(text: string): void {
    let message: JSONRPCMessage & Record<string, unknown>;
    try {
      message = JSON.parse(text) as JSONRPCMessage & Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof message.id === 'number' && !('method' in message)) {
      const entry = this.waiting.get(message.id);
      if (!entry) return; // cancelled here already
      this.waiting.delete(message.id);
      const error = message.error as { code?: number; message?: string } | undefined;
      if (error) entry.reject(new Error(`the remote answered ${String(error.code)}: ${error.message ?? 'error'}`));
      else entry.resolve(message.result);
      return;
    }
    if (message.method === 'notifications/progress') {
      const params = (message.params ?? {}) as { progressToken?: unknown; progress?: unknown; message?: unknown };
      const id = this.progressOf.get(String(params.progressToken));
      const entry = id === undefined ? undefined : this.waiting.get(id);
      if (entry?.progress && typeof params.progress === 'number')
        entry.progress(params.progress, typeof params.message === 'string' ? params.message : undefined);
    }
    // Anything else (resources/list_changed, a request): not this hub's to act on.
  }
}

function progressToken(id: number): string {
  return `p${id}`;
}

/** The link dropped while the call waited: its result is unknown. */
class LinkDropped extends Error {}
/** Cancelled here (the agent's request was). */
class CallCancelled extends Error {}

export interface CallsRemote {
  readonly name: string;
  /** This machine, as the remote's audit names where calls came from. */
  readonly localName: string;
  /** The link, connecting now if it waits; or why it is not up. */
  connected(): Promise<LinkMux | { problem: string; details: Record<string, unknown> }>;
}

/**
 * The tool calls of this hub's agents to one remote (docs/design.md §4.7): one AgentStream per
 * MCP connection here, on the link that is up. A call made while the link is down tries to connect
 * (bounded) and otherwise gets REMOTE_UNAVAILABLE saying why; a call whose link drops while it
 * runs gets REMOTE_UNAVAILABLE with `result_unknown`, and is never sent again (the command may
 * have run: as the shim does after a hub restart, docs/design.md §4.4).
 */
export class RemoteCalls implements Disposable {
  private readonly streams = new Map<string, { mux: LinkMux; agent: AgentStream }>();

  constructor(private readonly remote: CallsRemote) {}

  async call(tool: string, args: Record<string, unknown>, caller: RemoteCaller): Promise<CallToolResult> {
    const link = await this.remote.connected();
    if (!(link instanceof LinkMux)) throw new SwitchboardError(ErrorCode.RemoteUnavailable, link.problem, link.details);
    const agent = this.agentFor(link, caller);
    try {
      await agent.ready;
    } catch (error) {
      throw this.unavailable(error, false);
    }
    if (caller.signal.aborted) return cancelled();
    const { id, answer } = agent.request(
      'tools/call',
      { name: tool, arguments: args },
      caller.progressToken !== undefined ? (progress, message) => caller.progress(progress, message) : undefined,
    );
    const onAbort = (): void => agent.cancel(id, 'the agent cancelled the call');
    caller.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return (await answer) as CallToolResult;
    } catch (error) {
      if (error instanceof CallCancelled) return cancelled();
      throw this.unavailable(error, true);
    } finally {
      caller.signal.removeEventListener('abort', onAbort);
    }
  }

  /** This hub's MCP connection went away: its stream closes; its calls there go on (a disconnect is not a cancellation). */
  connectionClosed(connection: string): void {
    const entry = this.streams.get(connection);
    if (!entry) return;
    this.streams.delete(connection);
    entry.agent.close();
  }

  dispose(): void {
    for (const { agent } of this.streams.values()) agent.close();
    this.streams.clear();
  }

  private agentFor(mux: LinkMux, caller: RemoteCaller): AgentStream {
    const entry = this.streams.get(caller.connection);
    if (entry && entry.mux === mux && !entry.agent.closed) return entry.agent;
    const agent = new AgentStream(mux.open({ kind: 'mcp' }), {
      name: caller.client.name,
      version: `${caller.client.version} via ${this.remote.localName}`.trim(),
    });
    this.streams.set(caller.connection, { mux, agent });
    return agent;
  }

  private unavailable(error: unknown, sent: boolean): SwitchboardError {
    const why = error instanceof Error ? error.message : String(error);
    if (!sent || !(error instanceof LinkDropped)) {
      return new SwitchboardError(
        ErrorCode.RemoteUnavailable,
        `${this.remote.name} did not take the call (${why}); nothing was run there. Try again; list shows whether ${this.remote.name} is connected.`,
        { host: this.remote.name },
      );
    }
    return new SwitchboardError(
      ErrorCode.RemoteUnavailable,
      `The link to ${this.remote.name} dropped while the call ran (${why}): the result is unknown, and the call was not sent again. The command may still be running there; once ${this.remote.name} is back (it reconnects by itself), check with list and read before trying again.`,
      { host: this.remote.name, result_unknown: true },
    );
  }
}

function cancelled(): CallToolResult {
  return { content: [{ type: 'text', text: 'Cancelled.' }], isError: true };
}
