/**
 * DetachingTransport: a connection closing is not a cancellation. The official client and
 * McpServer over an in-memory pair; a tool that waits shows whether its abort signal fired.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DetachingTransport } from '../../src/hub/detachingTransport.js';

async function setup(): Promise<{
  client: Client;
  wire: DetachingTransport;
  state: { started: boolean; aborted: boolean; finished: boolean; serverClosed: boolean; released: boolean };
  release: () => void;
}> {
  const state = { started: false, aborted: false, finished: false, serverClosed: false, released: false };
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool('wait', { description: 'waits for the test', inputSchema: z.object({}) }, async (_args, ctx) => {
    state.started = true;
    const signal = ctx.mcpReq.signal;
    await new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => {
        state.aborted = true;
        resolve();
      });
      void gate.then(resolve);
    });
    state.finished = true;
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const wire = new DetachingTransport(serverSide, { onReleased: () => (state.released = true) });
  await server.connect(wire);
  const previous = server.server.onclose;
  server.server.onclose = () => {
    state.serverClosed = true;
    previous?.();
  };
  const client = new Client({ name: 'client', version: '1' });
  await client.connect(clientSide);
  return { client, wire, state, release: () => release() };
}

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('DetachingTransport', () => {
  it('keeps a call running after its connection closes, then releases the server', async () => {
    const { client, wire, state, release } = await setup();
    const call = client.callTool({ name: 'wait', arguments: {} }).catch(() => 'connection closed');
    await until(() => state.started);
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state).toMatchObject({ aborted: false, serverClosed: false, released: false });
    expect(wire.pendingCalls).toBe(1);

    release();
    await until(() => state.released);
    expect(state).toMatchObject({ aborted: false, finished: true, serverClosed: true });
    expect(await call).toBe('connection closed');
  });

  it('still lets an explicit cancellation abort the call', async () => {
    const { client, state, wire } = await setup();
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal }).catch(() => 'cancelled');
    await until(() => state.started);
    controller.abort('changed my mind');
    await until(() => state.aborted);
    expect(await call).toBe('cancelled');
    expect(wire.pendingCalls).toBe(0);
    await client.close();
    await until(() => state.released);
  });

  it('closes at once on forceClose (hub shutdown)', async () => {
    const { client, wire, state } = await setup();
    void client.callTool({ name: 'wait', arguments: {} }).catch(() => undefined);
    await until(() => state.started);
    await wire.forceClose();
    expect(state).toMatchObject({ serverClosed: true, released: true, aborted: true });
  });
});
