/**
 * The view's one way out of its frame: MCP's JSON-RPC 2.0 over `postMessage` with the host (the
 * MCP Apps spec, "Transport Layer"). Hand-written rather than the SDK's `App` class, which brings
 * the MCP client and zod (some 500 KB) for the few messages this view sends: the spec says a view
 * needs no SDK to talk to its host. Only messages from the parent window are read.
 */

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A JSON-RPC error answer from the host (a refused or unknown method, a failed call). */
export class HostError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Params = Record<string, unknown>;

export class HostChannel {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notificationHandlers = new Map<string, (params: Params) => void>();
  private readonly requestHandlers = new Map<string, (params: Params) => unknown>();

  constructor(private readonly host: Window = window.parent) {
    window.addEventListener('message', (event) => {
      if (event.source !== this.host) return;
      this.receive(event.data);
    });
  }

  /** A request to the host; rejects with HostError on an error answer, or after `timeoutMs`. */
  request<T>(method: string, params: Params, timeoutMs = 20_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: the host did not answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject, timer });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: Params = {}): void {
    this.post({ jsonrpc: '2.0', method, params });
  }

  onNotification(method: string, handler: (params: Params) => void): void {
    this.notificationHandlers.set(method, handler);
  }

  /** Answers the host's `method` requests with what `handler` returns. */
  onRequest(method: string, handler: (params: Params) => unknown): void {
    this.requestHandlers.set(method, handler);
  }

  private post(message: object): void {
    // The host's origin is not ours to know (a sandboxed frame may have none); the parent
    // window is the only receiver, and only its messages are read.
    this.host.postMessage(message, '*');
  }

  private receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || (data as { jsonrpc?: unknown }).jsonrpc !== '2.0') return;
    const message = data as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
    const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as Params;
    if (typeof message.method === 'string') {
      if (message.id === undefined) return this.notificationHandlers.get(message.method)?.(params);
      return void this.answer(message.id, message.method, params);
    }
    if (typeof message.id !== 'number') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new HostError(Number(message.error.code ?? -32603), String(message.error.message ?? 'error')));
    else pending.resolve(message.result);
  }

  private async answer(id: unknown, method: string, params: Params): Promise<void> {
    const handler = method === 'ping' ? () => ({}) : this.requestHandlers.get(method);
    if (!handler) return this.post({ jsonrpc: '2.0', id, error: { code: -32601, message: `${method} is not handled by this view` } });
    try {
      this.post({ jsonrpc: '2.0', id, result: (await handler(params)) ?? {} });
    } catch (error) {
      this.post({ jsonrpc: '2.0', id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } });
    }
  }
}
