import { watch } from 'node:fs';
import * as path from 'node:path';

/**
 * Resolves once `check()` holds, checking it now and again each time something in `file`'s
 * directory changes (inotify on Linux, FSEvents on macOS): the hub writing audit.jsonl, a
 * command creating a marker file. Rejects after `timeoutMs`, naming `what`.
 */
export function whenFile(file: string, check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const watcher = watch(path.dirname(file), () => test());
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const test = (): void => {
      let holds = false;
      try {
        holds = check();
      } catch {
        // Half-written (a JSON line being appended): the next change tells.
      }
      if (!holds) return;
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    test();
  });
}
