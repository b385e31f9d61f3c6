import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Stops the hub a shim started in `home` (its pid is in hub.json) and waits for it to go.
 * The hub is not our child, so there is no exit event to wait on: poll /proc, bounded.
 */
export async function stopHubIn(home: string, deadlineMs = 5_000): Promise<void> {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(path.join(home, 'hub.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return; // no hub was started here
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}
