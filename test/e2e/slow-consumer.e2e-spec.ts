import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { McpResourceService, ResourceNotificationService } from '@app/mcp';
import type { McpLiveStreams } from '@nest-mcp/server/backend';
import { MCP_LIVE_STREAMS } from '@app/mcp/backend/mcp-backend.tokens.js';
import { BasicTools } from '../fixtures/basic.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSession } from '../support/raw-http.js';
import { isUpdated, rawSession } from '../support/sse-client.js';

/** A URI long enough that each notification is ~7 KB, to fill socket buffers quickly. */
const BIG_URI = `mem://big/${'x'.repeat(7_000)}`;
const CONTROL_URI = 'mem://control';

/** Opens the GET stream on a raw socket and stops reading at once: a client that stalls. */
function openStalledStream(port: number, sessionId: string): Promise<{ socket: Socket; received: () => string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nMCP-Session-Id: ${sessionId}\r\n\r\n`,
      );
    });
    const chunks: Buffer[] = [];
    socket.once('data', (chunk: Buffer) => {
      chunks.push(chunk);
      socket.pause();
      resolve({ socket, received: () => Buffer.concat(chunks).toString('utf8') });
      socket.on('data', (more: Buffer) => chunks.push(more));
    });
    socket.once('error', reject);
  });
}

/** Resolves once `condition` holds, re-checking on each chunk the socket receives (bounded). */
function waitUntil(condition: () => boolean, socket: Socket, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('condition not met in time')), timeoutMs);
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      socket.off('data', check);
      resolve();
    };
    socket.on('data', check);
    check();
  });
}

describe('a slow consumer', () => {
  let fixture: FixtureApp;
  let port: number;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools],
      mcp: {
        delivery: { maxStreamBufferBytes: 64 * 1024, replayBufferSize: 50 },
        transport: { keepAliveMs: 60_000 },
      },
    });
    port = Number(new URL(fixture.origin).port);
    const resources = fixture.app.get(McpResourceService);
    resources.register(BIG_URI, () => 'big', { name: 'big' });
    resources.register(CONTROL_URI, () => 'control', { name: 'control' });
  });

  afterAll(() => fixture.close());

  it('is cut off at the buffer cap without blocking others, and resumes from the outbox', async () => {
    const notifier = fixture.app.get(ResourceNotificationService);
    const liveStreams = fixture.app.get<McpLiveStreams>(MCP_LIVE_STREAMS);
    const slow = rawSession(fixture.endpoint, await openSession(fixture.endpoint));
    const healthy = rawSession(fixture.endpoint, await openSession(fixture.endpoint));
    await slow.subscribe(BIG_URI);
    await healthy.subscribe(CONTROL_URI);
    const healthyStream = await healthy.openStream();
    const stalled = await openStalledStream(port, slow.sessionId);

    // Emit until the server gives up on the stalled stream (bounded: 5,000 × 7 KB = 35 MB).
    let sent = 0;
    while (liveStreams.holds(slow.sessionId) && sent < 5_000) {
      await notifier.notifyResourceUpdated(BIG_URI);
      sent++;
      if (sent % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(liveStreams.holds(slow.sessionId)).toBe(false);
    expect(sent).toBeLessThan(5_000);

    // Other sessions were not held up meanwhile.
    await notifier.notifyResourceUpdated(CONTROL_URI);
    await healthyStream.waitFor(isUpdated(CONTROL_URI), 2_000);

    // The stalled client reads what reached it: the stream ends with the retry hint (the
    // connection itself may stay open for keep-alive).
    stalled.socket.resume();
    await waitUntil(() => stalled.received().includes('retry: 1000'), stalled.socket);
    stalled.socket.destroy();

    // Updates while it is away are queued (coalesced into one); it reconnects with the last id
    // it saw and gets them replayed.
    for (let i = 0; i < 3; i++) await notifier.notifyResourceUpdated(BIG_URI);
    const lastId = [...stalled.received().matchAll(/^id: (.+)$/gm)].at(-1)?.[1];
    expect(lastId).toEqual(expect.any(String));
    const resumed = await slow.openStream({ lastEventId: lastId });
    const replayed = await resumed.waitFor(isUpdated(BIG_URI), 2_000);
    expect(replayed.index).toBe(0);
    resumed.close();
    healthyStream.close();
  }, 20_000);
});
