/**
 * A client that reads normally is never taken for a slow consumer because one message is larger
 * than `delivery.maxStreamBufferBytes`: the next message written while the large one still drains
 * reaches it, on every streaming transport (docs/transports.md, docs/security.md).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'node:net';
import { WsAdapter } from '@nestjs/platform-ws';
import { BulkyTools } from '../fixtures/bulky.tools.js';
import { EchoTools } from '../fixtures/echo.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openLegacySse, type LegacySseClient } from '../support/legacy-sse-client.js';
import { openSession, parseSse, rawPost } from '../support/raw-http.js';
import { rawSession, type SseClient } from '../support/sse-client.js';
import { openWs, wsUrl, type RawWsClient } from '../support/ws-client.js';

const LARGE = 3 * 1024 * 1024;
const large = 'x'.repeat(LARGE);

describe('a reading client and a message larger than the stream buffer cap (1 MiB)', () => {
  let fixture: FixtureApp;
  const closers: Array<() => unknown> = [];

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [EchoTools, BulkyTools],
      mcp: { ws: { path: '/ws' }, sse: { path: '/sse', messagesPath: '/messages' } },
      configure: (app) => app.useWebSocketAdapter(new WsAdapter(app)),
    });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map(async (close) => close()));
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('WebSocket: a 3 MiB echo followed at once by a ping gets both answers and the socket stays open', async () => {
    const client: RawWsClient = await openWs(wsUrl(fixture.origin));
    closers.push(() => client.close());
    await client.initialize();
    const from = client.messages.length;
    // The ping leaves as the echo's answer starts to arrive, so it is answered while that drains.
    // On loopback the kernel often takes the whole answer at once, leaving no backlog to judge:
    // ws.connection.spec.ts pins the rule with a backlog the test controls.
    const wire = (client.socket as unknown as { _socket: Socket })._socket;
    const answerStarted = new Promise((resolve) => wire.once('data', resolve));
    await client.send({
      jsonrpc: '2.0',
      id: 'big',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: large } },
    });
    await answerStarted;
    await client.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    const echoed = await client.waitFor((m) => m.id === 'big', 10_000, from);
    const pinged = await client.waitFor((m) => m.id === 'after', 10_000, from);
    expect(JSON.parse(echoed.result.content[0].text).text).toHaveLength(LARGE);
    expect(pinged.result).toEqual({});
    expect(client.isClosed).toBe(false);
    await expect(client.request('ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
  });

  it('WebSocket: a 3 MiB progress message, a small one right after it and the result all arrive', async () => {
    const client: RawWsClient = await openWs(wsUrl(fixture.origin));
    closers.push(() => client.close());
    await client.initialize();
    const from = client.messages.length;
    const answer = await client.request(
      'tools/call',
      { name: 'bulky', arguments: { bytes: LARGE }, _meta: { progressToken: 'w' } },
      10_000,
    );
    expect(answer.result.content[0].text).toBe('done');
    const progress = client.messages.slice(from).filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params.message.length)).toEqual([LARGE, 'small'.length]);
    expect(client.isClosed).toBe(false);
  });

  it('legacy HTTP+SSE: a 3 MiB echo followed at once by a ping gets both answers on the open stream', async () => {
    const client: LegacySseClient = await openLegacySse(fixture.origin);
    closers.push(() => client.close());
    await client.initialize();
    const [echoed, pinged] = await Promise.all([
      client.request('big', 'tools/call', { name: 'echo', arguments: { text: large } }, 10_000),
      client.request('after', 'ping', undefined, 10_000),
    ]);
    expect(JSON.parse(echoed.result.content[0].text).text).toHaveLength(LARGE);
    expect(pinged.result).toEqual({});
    expect(client.stream.isEnded).toBe(false);
    await expect(client.request('again', 'ping')).resolves.toEqual(expect.objectContaining({ result: {} }));
  });

  it('Streamable HTTP POST answer: a 3 MiB progress message, a small one and the result all arrive', async () => {
    const session = rawSession(fixture.endpoint, await openSession(fixture.endpoint));
    const answer = await rawPost(
      fixture.endpoint,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'bulky', arguments: { bytes: LARGE }, _meta: { progressToken: 'p' } },
      },
      session.headers,
    );
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = parseSse(answer.text).map((event) => JSON.parse(event.data));
    expect(messages.map((m) => m.params?.message?.length ?? m.id)).toEqual([LARGE, 'small'.length, 7]);
    expect(answer.text).not.toContain('retry:');
  });

  it('Streamable HTTP GET stream: a 3 MiB progress message and a small one after it both arrive', async () => {
    const session = rawSession(fixture.endpoint, await openSession(fixture.endpoint));
    const stream: SseClient = await session.openStream();
    closers.push(() => stream.close());
    // A client that accepts only JSON gets the call's progress on its GET stream.
    const answer = await rawPost(
      fixture.endpoint,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'bulky', arguments: { bytes: LARGE }, _meta: { progressToken: 'g' } },
      },
      { ...session.headers, accept: 'application/json' },
    );
    expect(answer.json.result.content[0].text).toBe('done');
    const small = await stream.waitFor((event) => event.json?.params?.message === 'small', 10_000);
    expect(stream.events[small.index - 1].json.params.message).toHaveLength(LARGE);
    expect(stream.isEnded).toBe(false);
  });
});
