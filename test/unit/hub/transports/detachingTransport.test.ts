/**
 * DetachingTransport: a connection closing is not a cancellation. The official client and
 * McpServer over an in-memory pair; a tool that waits shows whether its abort signal fired.
 * Each step waits for the event it is about (the tool starting, the transport seeing the close,
 * the abort, the release), never for time to pass.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DetachingTransport } from '../../../../src/hub/transports/detachingTransport.js';

/** A promise and the function that resolves it: one event a test waits for. */
function signal(): { happened: Promise<void>; fire: () => void } {
  let fire: () => void = () => undefined;
  const happened = new Promise<void>((resolve) => (fire = resolve));
  return { happened, fire };
}

async function setup(): Promise<{
  client: Client;
  wire: DetachingTransport;
  state: { started: boolean; aborted: boolean; finished: boolean; serverClosed: boolean; detached: boolean; released: boolean };
  events: { started: Promise<void>; aborted: Promise<void>; detached: Promise<void>; released: Promise<void> };
  release: () => void;
}> {
  const state = { started: false, aborted: false, finished: false, serverClosed: false, detached: false, released: false };
  const started = signal();
  const aborted = signal();
  const detached = signal();
  const released = signal();
  const gate = signal();
  const server = new McpServer({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool('wait', { description: 'waits for the test', inputSchema: z.object({}) }, async (_args, ctx) => {
    state.started = true;
    started.fire();
    const abortSignal = ctx.mcpReq.signal;
    await new Promise<void>((resolve) => {
      abortSignal.addEventListener('abort', () => {
        state.aborted = true;
        aborted.fire();
        resolve();
      });
      void gate.happened.then(resolve);
    });
    state.finished = true;
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const wire = new DetachingTransport(serverSide, {
    onDetached: () => {
      state.detached = true;
      detached.fire();
    },
    onReleased: () => {
      state.released = true;
      released.fire();
    },
  });
  await server.connect(wire);
  const previous = server.server.onclose;
  server.server.onclose = () => {
    state.serverClosed = true;
    previous?.();
  };
  const client = new Client({ name: 'client', version: '1' });
  await client.connect(clientSide);
  return {
    client,
    wire,
    state,
    events: { started: started.happened, aborted: aborted.happened, detached: detached.happened, released: released.happened },
    release: gate.fire,
  };
}

describe('DetachingTransport', () => {
  it('keeps a call running after its connection closes, then releases the server', async () => {
    const { client, wire, state, events, release } = await setup();
    const call = client.callTool({ name: 'wait', arguments: {} }).catch(() => 'connection closed');
    await events.started;
    await client.close();
    // The transport has seen the connection go: what it would have passed on, it has by now.
    await events.detached;
    expect(state).toMatchObject({ aborted: false, serverClosed: false, released: false });
    expect(wire.pendingCalls).toBe(1);

    release();
    await events.released;
    expect(state).toMatchObject({ aborted: false, finished: true, serverClosed: true });
    expect(await call).toBe('connection closed');
  });

  it('still lets an explicit cancellation abort the call', async () => {
    const { client, events, wire } = await setup();
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal }).catch(() => 'cancelled');
    await events.started;
    controller.abort('changed my mind');
    await events.aborted;
    expect(await call).toBe('cancelled');
    expect(wire.pendingCalls).toBe(0);
    await client.close();
    await events.released;
  });

  it('closes at once on forceClose (hub shutdown)', async () => {
    const { client, wire, state, events } = await setup();
    void client.callTool({ name: 'wait', arguments: {} }).catch(() => undefined);
    await events.started;
    await wire.forceClose();
    expect(state).toMatchObject({ serverClosed: true, released: true, aborted: true });
  });
});
