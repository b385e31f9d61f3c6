/**
 * Polling, bounded, for the few states that no event announces: a process blocked in read(2)
 * on its terminal, the terminal's foreground process group, a process that is not our child
 * exiting. Everything else a test waits for has an event (output, a mark, a message, a
 * callback) and waits on it; a fixed sleep never stands in for either.
 *
 * Each poll re-checks the state itself (it never assumes the state arrived because time
 * passed), and the bound only turns "never" into a failure that names what did not happen.
 */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: { timeoutMs?: number; everyMs?: number; detail?: () => string } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not so within ${timeoutMs} ms${options.detail ? `; ${options.detail()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 20));
  }
}
