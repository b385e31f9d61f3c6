import type { Emulator, OutputPosition } from '../emulation/emulator.js';
import { DisposableStore, type Event } from '../event.js';
import { PatternMatcher } from './patternMatcher.js';
import type { ExitWatch } from './raceOutcome.js';
import type { WaitOutcome, WaitSpec } from '../types.js';

const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
/** Pattern checks are coalesced: at most one per this interval while output streams. */
const PATTERN_CHECK_INTERVAL_MS = 30;
/** A wait's pattern sees at most this many rows of new output (bounded input). */
const PATTERN_ROWS = 500;

/** What a session offers a wait: its events and a way to read the text to match. */
export interface WaitSources {
  /** Resolves when the session exits (at once if it has); dispose to let go (see ExitWatch). */
  watchExit: () => ExitWatch;
  /** The foreground command finished (D mark). */
  onDidFinishCommand: Event<unknown>;
  /** Output was parsed by the emulator (the screen changed). */
  onDidParse: Event<unknown>;
  /** The foreground job is blocked reading the terminal. */
  onDidAwaitInput: Event<unknown>;
  lastOutputAt: () => number;
  /** Text the pattern is tested against: new output since the wait began (bounded). */
  text: () => string;
  /** The visible screen, which `absent` is tested against. */
  screen: () => string;
  /** Output arrived that the emulator has not parsed yet: the screen is not current. */
  parsing: () => boolean;
}

/** What a session's waits are made of: its emulator, its exit, its input watch, its output's pace. */
export interface WaitableSession {
  emulator: Pick<Emulator, 'tracker' | 'onDidParse' | 'isAlternateScreen' | 'screenLines' | 'linesSince' | 'backlog'>;
  watchExit: () => ExitWatch;
  onDidAwaitInput: Event<unknown>;
  lastOutputAt: () => number;
}

/**
 * A session's sources for a wait that began at `since`. `read` tests the pattern against the
 * screen and the new output (`includeScreen`); `send` only against what appeared since it typed,
 * so a prompt already on screen does not end its wait at once.
 */
export function sessionWaitSources(session: WaitableSession, since: OutputPosition, includeScreen: boolean): WaitSources {
  const { emulator } = session;
  return {
    watchExit: () => session.watchExit(),
    onDidFinishCommand: emulator.tracker.onDidFinishCommand,
    onDidParse: emulator.onDidParse,
    onDidAwaitInput: session.onDidAwaitInput,
    lastOutputAt: () => session.lastOutputAt(),
    // Bounded: the last rows since the wait began (the full screen for full-screen programs).
    text: () => {
      if (emulator.isAlternateScreen) return emulator.screenLines().join('\n');
      const fresh = emulator.linesSince(since, PATTERN_ROWS).lines.join('\n');
      return includeScreen ? `${emulator.screenLines().join('\n')}\n${fresh}` : fresh;
    },
    // A screen larger than the matcher's input bound is tested on its last part.
    screen: () => emulator.screenLines().join('\n'),
    parsing: () => emulator.backlog > 0,
  };
}

interface WaitOptions {
  /** `exit` resolves at once: nothing is running. */
  nothingRunning: boolean;
  signal?: AbortSignal;
}

/**
 * Races the wait's conditions (docs/design.md §3.3 `wait`): exit, pattern, absent, idle,
 * awaiting input, timeout, cancellation — whichever first. A timeout is an answer, not an error.
 * An invalid or runaway pattern rejects with INVALID_ARGUMENT.
 */
export function waitFor(spec: WaitSpec, sources: WaitSources, options: WaitOptions): Promise<WaitOutcome> {
  const matcher = spec.pattern !== undefined ? new PatternMatcher(spec.pattern) : null;
  const absent = spec.absent !== undefined ? new PatternMatcher(spec.absent, 'wait.absent') : null;
  if (spec.exit && options.nothingRunning) return Promise.resolve('exit');
  const store = new DisposableStore();
  return new Promise<WaitOutcome>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: WaitOutcome): void => {
      if (settled) return;
      settled = true;
      store.dispose();
      resolve(outcome);
    };
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      store.dispose();
      reject(error);
    };

    const timeout = setTimeout(() => finish('timeout'), spec.timeout_ms ?? DEFAULT_WAIT_TIMEOUT_MS);
    store.add({ dispose: () => clearTimeout(timeout) });

    if (options.signal) {
      const signal = options.signal;
      if (signal.aborted) return finish('cancelled');
      const onAbort = (): void => finish('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      store.add({ dispose: () => signal.removeEventListener('abort', onAbort) });
    }
    const exited = store.add(sources.watchExit());
    void exited.promise.then(() => finish('exit'));
    if (spec.exit) store.add(sources.onDidFinishCommand(() => finish('exit')));
    store.add(sources.onDidAwaitInput(() => finish('awaiting_input')));

    if (matcher || absent) {
      let scheduled: NodeJS.Timeout | null = null;
      const check = (): void => {
        scheduled = null;
        try {
          if (matcher?.test(sources.text())) finish('pattern');
          // Only a parsed screen can say the text is gone: output still in flight may draw it.
          else if (absent && !sources.parsing() && !absent.test(sources.screen())) finish('absent');
        } catch (error) {
          fail(error);
        }
      };
      store.add(
        sources.onDidParse(() => {
          scheduled ??= setTimeout(check, PATTERN_CHECK_INTERVAL_MS);
        }),
      );
      store.add({ dispose: () => scheduled && clearTimeout(scheduled) });
      check();
    }

    if (spec.idle_ms !== undefined) {
      const idleMs = spec.idle_ms;
      // Re-armed lazily from the last output time: no timer churn per chunk on a flood.
      let timer: NodeJS.Timeout | undefined;
      const arm = (): void => {
        const due = sources.lastOutputAt() + idleMs - Date.now();
        timer = setTimeout(() => (Date.now() - sources.lastOutputAt() >= idleMs ? finish('idle') : arm()), Math.max(0, due));
      };
      store.add({ dispose: () => clearTimeout(timer) });
      arm();
    }
  });
}
