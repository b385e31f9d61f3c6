/**
 * Test-only preload for the hub of churn.test.ts (NODE_OPTIONS="--expose-gc --require …"):
 * SIGUSR2 runs a full garbage collection, then says so on stderr, so the test weighs the hub's
 * memory without the garbage V8 has not collected yet (RSS swung by ±30 MiB without it).
 */
'use strict';

process.on('SIGUSR2', () => {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
  // What the hub holds after the collection: the JS heap and what it keeps outside it (Buffers).
  const { heapUsed, external } = process.memoryUsage();
  process.stderr.write(`churn-test: gc done ${JSON.stringify({ heapUsed, external })}\n`);
});
