/**
 * Waiting for a hub, bounded: connect; when nothing answers, start one (once per attempt) and
 * retry as soon as the state dir changes (fs.watch on hub.sock / hub.json / token), with a
 * capped backoff as the fallback for file systems where watching is unreliable. Gives up at the
 * deadline, or early when the hub it started died without another one taking its place.
 */
import * as fs from 'node:fs';
import { HUB_INFO_FILE, SOCKET_FILE, TOKEN_FILE } from '../hub/common/socketProtocol.js';
import { processAlive, readHubInfo } from '../hub/common/hubInfo.js';
import { HubConnectError, HubConnection, type HubConnectionEvents } from './hubConnection.js';
import { launchHub, type LaunchedHub } from './hubLauncher.js';

const FIRST_RETRY_MS = 25;
const MAX_RETRY_MS = 500;
/** A hub.json naming a live process but no socket for this long is stale: start a hub anyway. */
const STALE_HUB_MS = 1_500;

interface ConnectOptions {
  stateDir: string;
  version: string;
  /** Start a hub when none answers. */
  launch: boolean;
  /** Prefer the installed macOS app (only for the default state dir). */
  useApp: boolean;
  deadlineMs: number;
  signal: AbortSignal;
  events: HubConnectionEvents;
  /** Told once when a hub is being started (logs). */
  onLaunch?: (description: string) => void;
}

class HubUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubUnavailableError';
  }
}

export async function connectToHub(options: ConnectOptions): Promise<HubConnection> {
  const { stateDir, signal } = options;
  const started = Date.now();
  const deadline = started + options.deadlineMs;
  let wake: (() => void) | null = null;
  const poke = (): void => wake?.();
  const watched = new Set([SOCKET_FILE, HUB_INFO_FILE, TOKEN_FILE]);
  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(stateDir, (_event, name) => {
      if (name === null || watched.has(String(name))) poke();
    });
    watcher.on('error', () => undefined);
  } catch {
    // No watching (e.g. the directory vanished): the backoff retries still bound the wait.
  }
  signal.addEventListener('abort', poke);

  let launched: LaunchedHub | null = null;
  // Set from a callback: read through a holder so control-flow narrowing does not pin it to null.
  const launcher: { exit: { code: number | null } | null } = { exit: null };
  let lastError = 'no hub answered';
  let retryMs = FIRST_RETRY_MS;
  try {
    for (;;) {
      if (signal.aborted) throw new HubUnavailableError('stopped while waiting for the hub');
      try {
        return await HubConnection.connect(stateDir, options.version, options.events);
      } catch (error) {
        if (!(error instanceof HubConnectError)) throw error;
        lastError = error.message;
        const info = readHubInfo(stateDir);
        const alive = info !== undefined && processAlive(info.pid);
        if (error.failure === 'absent' && options.launch && !launched && (!alive || Date.now() - started > STALE_HUB_MS)) {
          launched = launchHub(stateDir, { useApp: options.useApp });
          options.onLaunch?.(launched.description);
          const isServe = !launched.description.startsWith('open ');
          void launched.exited.then((code) => {
            // `open` returns at once; only its failure counts. A `serve` that exits never answered.
            if (isServe || code !== 0) launcher.exit = { code };
            poke();
          });
        }
        const exit = launcher.exit;
        if (exit && !alive) {
          throw new HubUnavailableError(
            `the hub it started (${launched?.description ?? 'switchboard serve'}) exited with code ${String(exit.code)} before answering; see hub.log in the state directory`,
          );
        }
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new HubUnavailableError(`no hub answered within ${options.deadlineMs} ms (${lastError})`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(retryMs, remaining));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  } finally {
    watcher?.close();
    signal.removeEventListener('abort', poke);
  }
}
