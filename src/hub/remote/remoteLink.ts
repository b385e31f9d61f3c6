import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter, type Disposable, type Event } from '../../core/index.js';
import type { Logger } from '../common/logger.js';
import { LINK_PROTOCOL_VERSION, MAX_HANDSHAKE_BYTES, type HandshakeReply, type LinkHelloMessage } from '../common/socketProtocol.js';
import { linkProblem, type LinkEnd, type LinkProblem, type LinkProblemCode } from './linkFailure.js';
import { LinkMux } from './linkMux.js';
import type { RemoteEntry } from '../settings/remoteSettings.js';
import { SSH_PROGRAM, sshArguments } from './sshInvocation.js';

export type RemoteState = 'connecting' | 'connected' | 'disconnected';

/** A remote as the window, `status` and an agent's error show it. */
export interface RemoteStatus {
  name: string;
  destination: string;
  state: RemoteState;
  /** Since when (ISO 8601). */
  since: string;
  /** Why it is not connected (the last failure, also while connecting again). */
  problem?: LinkProblem;
  /** The remote's Switchboard version, once connected. */
  version?: string;
  /** When the next attempt starts (ISO 8601), while disconnected. */
  retry_at?: string;
}

/** Waits between attempts: quick after a drop, then slower; problems only the person can fix are retried at the slowest. */
const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000];
const SLOW_RETRY_MS = 60_000;
/** A link that stayed up this long starts its backoff from the beginning when it drops. */
const STABLE_MS = 60_000;
/** Problems a retry does not fix until the person does something. */
const NEEDS_PERSON: ReadonlySet<LinkProblemCode> = new Set(['host_key_changed', 'host_key_unknown', 'key_refused', 'not_installed', 'incompatible', 'no_ssh']);
/** Lines a remote's shell may print before `switchboard link` answers (a chatty rc file), at most. */
const MAX_PREAMBLE_BYTES = 4 * MAX_HANDSHAKE_BYTES;
/** What is kept of ssh's stderr to say why a link ended. */
const STDERR_TAIL_BYTES = 8 * 1024;
/** How long an ssh asked to stop gets before SIGKILL. */
const STOP_GRACE_MS = 2_000;

/** One ssh process and, once it was answered, the link it carries. */
interface Attempt {
  child: ChildProcessWithoutNullStreams;
  mux?: LinkMux;
  connectedAt?: number;
  /** The link broke on this side (a frame that did not parse): why. */
  brokenBy?: string;
}

export interface RemoteLinkOptions {
  /** This machine, as the remote's audit names where the link came from. */
  localName: string;
  version: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/**
 * One remote machine's link (docs/design.md §4.7): one `ssh … <command> link` process at a time,
 * kept by this hub while the remote is in settings. It connects at once, reconnects with backoff
 * when the link drops or cannot be made, and says why it is down (linkFailure.ts). While it is
 * up, `mux` carries the streams (linkMux.ts).
 */
export class RemoteLink implements Disposable {
  private current: Attempt | undefined;
  private statusValue: RemoteStatus;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly onDidChangeStatusEmitter = new EventEmitter<RemoteStatus>();
  readonly onDidChangeStatus: Event<RemoteStatus> = this.onDidChangeStatusEmitter.event;
  private readonly onDidConnectEmitter = new EventEmitter<LinkMux>();
  /** A link is up: streams may be opened on it. */
  readonly onDidConnect: Event<LinkMux> = this.onDidConnectEmitter.event;

  constructor(
    private entryValue: RemoteEntry,
    private readonly options: RemoteLinkOptions,
  ) {
    this.statusValue = { name: entryValue.name, destination: entryValue.destination, state: 'connecting', since: new Date().toISOString() };
    this.start();
  }

  get entry(): RemoteEntry {
    return this.entryValue;
  }

  get status(): RemoteStatus {
    return this.statusValue;
  }

  /** The link's streams while connected. */
  get mux(): LinkMux | undefined {
    return this.current?.mux && !this.current.mux.ended ? this.current.mux : undefined;
  }

  /** The pid of the ssh process (tests: to cut the link). */
  get sshPid(): number | undefined {
    return this.current?.child.pid;
  }

  /** The entry changed: a different destination, command or ssh config reconnects. */
  update(entry: RemoteEntry): void {
    const same =
      entry.destination === this.entryValue.destination && entry.command === this.entryValue.command && entry.sshConfig === this.entryValue.sshConfig;
    this.entryValue = entry;
    if (same) return;
    this.attempts = 0;
    this.stopChild();
    this.start();
  }

  /**
   * The link, connecting now if it waits for its next attempt; resolves when it is up, or with
   * the status saying why not once this attempt fails or `timeoutMs` passed.
   */
  async connected(timeoutMs: number): Promise<LinkMux | RemoteStatus> {
    const mux = this.mux;
    if (mux) return mux;
    if (this.disposed) return this.statusValue;
    if (!this.current) {
      clearTimeout(this.retryTimer);
      this.start();
    }
    return new Promise((resolve) => {
      const finish = (value: LinkMux | RemoteStatus): void => {
        clearTimeout(timer);
        subscription.dispose();
        resolve(value);
      };
      const timer = setTimeout(() => finish(this.statusValue), timeoutMs);
      const subscription = this.onDidChangeStatusEmitter.event((status) => {
        if (status.state === 'connected' && this.mux) finish(this.mux);
        else if (status.state === 'disconnected') finish(status);
      });
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.retryTimer);
    this.stopChild();
    this.onDidChangeStatusEmitter.dispose();
    this.onDidConnectEmitter.dispose();
  }

  private start(): void {
    if (this.disposed) return;
    this.retryTimer = undefined;
    this.setStatus({ state: 'connecting', ...(this.statusValue.problem ? { problem: this.statusValue.problem } : {}) });
    const entry = this.entryValue;
    const child = spawn(SSH_PROGRAM, sshArguments(entry), { stdio: ['pipe', 'pipe', 'pipe'], env: this.options.env });
    const attempt: Attempt = { child };
    this.current = attempt;
    let stderr = '';
    let denied: string | undefined;
    let reason: string | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    child.stdin.on('error', () => undefined); // ssh gone: its exit says why
    child.on('error', (error) => {
      spawnError = error as NodeJS.ErrnoException;
      ended();
    });
    let preamble = Buffer.alloc(0);
    const onHandshake = (chunk: Buffer): void => {
      preamble = Buffer.concat([preamble, chunk]);
      for (let newline = preamble.indexOf(0x0a); newline !== -1; newline = preamble.indexOf(0x0a)) {
        const line = preamble.subarray(0, newline).toString('utf8').trim();
        preamble = preamble.subarray(newline + 1);
        const reply = parseReply(line);
        if (!reply) continue; // what the remote's shell printed before switchboard started
        child.stdout.off('data', onHandshake);
        if (reply.type === 'denied') {
          denied = reply.reason;
          return;
        }
        child.stdout.pause();
        if (preamble.length > 0) child.stdout.unshift(preamble);
        this.established(attempt, reply.version);
        return;
      }
      if (preamble.length > MAX_PREAMBLE_BYTES) {
        child.stdout.off('data', onHandshake);
        reason = `the remote printed ${preamble.length} bytes that are not a link's answer: "${preamble.subarray(0, 120).toString('utf8').trim()}…" (a shell rc file that prints on a non-interactive shell?)`;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onHandshake);
    const hello: LinkHelloMessage = {
      type: 'link',
      from: this.options.localName,
      name: entry.name,
      link_protocol: LINK_PROTOCOL_VERSION,
      client: 'switchboard-hub',
      version: this.options.version,
    };
    child.stdin.write(`${JSON.stringify(hello)}\n`);
    let done = false;
    const ended = (): void => {
      if (done) return;
      done = true;
      const established = attempt.connectedAt !== undefined;
      if (attempt.mux && !attempt.mux.ended) attempt.mux.end('ssh ended');
      reason ??= attempt.brokenBy;
      const end: LinkEnd = {
        established,
        exitCode: child.exitCode,
        signal: child.signalCode,
        stderr,
        ...(spawnError ? { spawnError } : {}),
        ...(denied !== undefined ? { denied } : {}),
        ...(reason !== undefined ? { reason } : {}),
      };
      if (this.current === attempt) this.current = undefined;
      if (this.disposed || attempt.child !== child) return;
      this.failed(linkProblem(entry, end), established && Date.now() - attempt.connectedAt! >= STABLE_MS);
    };
    child.on('close', ended);
  }

  private established(attempt: Attempt, version: string): void {
    const mux = new LinkMux(attempt.child.stdout, attempt.child.stdin);
    attempt.mux = mux;
    attempt.connectedAt = Date.now();
    mux.onDidEnd((why) => {
      // A link that broke on this side (a frame that did not parse): its ssh has nothing left to carry.
      if (this.current === attempt && attempt.child.exitCode === null) {
        attempt.brokenBy = why;
        this.options.logger.warn(`remote ${this.entryValue.name}: ${why}`);
        attempt.child.kill('SIGTERM');
      }
    });
    attempt.child.stdout.resume();
    this.options.logger.info(`remote ${this.entryValue.name}: linked (Switchboard ${version} there)`);
    this.setStatus({ state: 'connected', version });
    this.onDidConnectEmitter.fire(mux);
  }

  private failed(problem: LinkProblem, wasStable: boolean): void {
    if (wasStable) this.attempts = 0;
    const delay = NEEDS_PERSON.has(problem.code) ? SLOW_RETRY_MS : BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)]!;
    this.attempts++;
    this.options.logger.warn(`remote ${this.entryValue.name}: ${problem.message}`);
    this.setStatus({ state: 'disconnected', problem, retry_at: new Date(Date.now() + delay).toISOString() });
    this.retryTimer = setTimeout(() => this.start(), delay);
    this.retryTimer.unref();
  }

  private stopChild(): void {
    const attempt = this.current;
    this.current = undefined;
    if (!attempt) return;
    attempt.mux?.end('the link was stopped');
    const { child } = attempt;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    force.unref();
    child.once('close', () => clearTimeout(force));
  }

  private setStatus(change: Pick<RemoteStatus, 'state'> & Partial<RemoteStatus>): void {
    const previous = this.statusValue;
    this.statusValue = {
      name: this.entryValue.name,
      destination: this.entryValue.destination,
      since: change.state === previous.state ? previous.since : new Date().toISOString(),
      ...change,
    };
    this.onDidChangeStatusEmitter.fire(this.statusValue);
  }
}

/** A `welcome` or `denied` line, or undefined for any other line. */
function parseReply(line: string): HandshakeReply | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(line) as Partial<HandshakeReply>;
    if (value.type === 'welcome' && typeof value.version === 'string') return value as HandshakeReply;
    if (value.type === 'denied' && typeof value.reason === 'string') return value as HandshakeReply;
  } catch {
    // Not JSON: a line the remote's shell printed.
  }
  return undefined;
}
