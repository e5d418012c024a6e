/**
 * Over-limit bodies reach the client as 413 (docs/decisions/0002-error-codes-and-http-statuses.md
 * defect 5). Ordinary clients hand over the whole body and read the answer whenever it comes;
 * if the server closed the connection while the body was still arriving, they saw
 * EPIPE/ECONNRESET instead of the 413. Every attempt here must get the 413 and its JSON-RPC
 * body, on the controller mount, the direct mount and the legacy `/messages` endpoint, for a
 * declared `Content-Length` and for a chunked body that passes the limit mid-way.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BasicTools } from '../fixtures/basic.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { mcpPostHeaders } from '../support/http-wire.js';
import { naiveUploads, type UploadClient, type UploadOutcome } from '../support/naive-upload.js';
import { probeRequestMemory, untilNoConnections } from '../support/memory-probe.js';
import { openSseClient, type SseClient } from '../support/sse-client.js';

const LIMIT = 64 * 1024;
/** Several MiB past the limit, so the body is still in flight when the answer is written. */
const BODY_BYTES = LIMIT + 4 * 1024 * 1024;

const CLIENTS: [UploadClient, number][] = [
  ['node:http', 20],
  ['fetch', 10],
];
const FRAMINGS: [string, boolean][] = [
  ['a declared Content-Length', false],
  ['a chunked body', true],
];

const TOO_LARGE = {
  status: 413,
  json: {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'Request body too large', data: { detail: `The body exceeds ${LIMIT} bytes` } },
  },
};

/** How many attempts ended in each status or client error. */
function tally(outcomes: UploadOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = 'error' in outcome ? outcome.error : String(outcome.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** `count` attempts one after the other: each one must be the 413 with its JSON-RPC error. */
async function expectEvery413(client: UploadClient, url: string, chunked: boolean, count: number): Promise<void> {
  const outcomes = await naiveUploads({
    client,
    url,
    headers: mcpPostHeaders(),
    chunked,
    bodyBytes: BODY_BYTES,
    count,
  });
  // A tally first, so a failure reads as "17 of 20 got EPIPE".
  expect(tally(outcomes)).toEqual({ 413: count });
  expect(outcomes).toEqual(Array.from({ length: count }, () => TOO_LARGE));
}

describe.each([
  ['the controller mount', { http: { path: '/mcp' } }],
  ["the direct mount (http: { mount: 'direct' })", { http: { path: '/mcp', mount: 'direct' as const } }],
])('an over-limit POST on %s', (_mount, transports) => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [BasicTools],
      mcp: { ...transports, limits: { maxBodyBytes: LIMIT } },
    });
  });

  afterAll(() => fixture.close());

  describe.each(FRAMINGS)('with %s', (_framing, chunked) => {
    it.each(CLIENTS)('reaches every %s client as 413 with a JSON-RPC body', async (client, count) => {
      await expectEvery413(client, fixture.endpoint, chunked, count);
    });

    it('keeps none of the refused bytes in memory while it drains them', async () => {
      const server = fixture.app.getHttpServer() as Server;
      // Uploads of the cases before may still be draining; their chunks are not this case's.
      await untilNoConnections(server);
      const probe = probeRequestMemory(server);
      try {
        await expectEvery413('node:http', fixture.endpoint, chunked, 5);
        // A body can end after its answer arrived: wait for all five (the test timeout bounds this).
        const grown = await probe.sampled(5);
        // Judged when the last body ended: the other four are over then, so only chunks of one
        // upload can be in flight. (An earlier sample can catch four uploads' socket buffers at
        // once on a loaded machine.) A reader that kept the bodies would hold all five there,
        // 5 bodies, and would have grown by 4 bodies since the first ended. Chunks in flight do
        // not add up from one upload to the next: on a loaded machine they have reached 2.7
        // bodies, so both bounds leave 3 bodies of room and still catch kept bodies.
        expect(grown).toHaveLength(5);
        expect(grown[4]).toBeLessThan(3 * BODY_BYTES);
        expect(grown[4] - grown[0]).toBeLessThan(3 * BODY_BYTES);
      } finally {
        probe.stop();
      }
    }, 60_000);
  });
});

describe('an over-limit POST on the legacy /messages endpoint', () => {
  let fixture: FixtureApp;
  let stream: SseClient;
  let messages: string;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [BasicTools], mcp: { sse: {}, limits: { maxBodyBytes: LIMIT } } });
    stream = await openSseClient(`${fixture.origin}/sse`);
    const endpoint = await stream.waitFor((event) => event.event === 'endpoint');
    messages = new URL(endpoint.data, fixture.origin).href;
  });

  afterAll(async () => {
    stream?.close();
    await fixture.close();
  });

  describe.each(FRAMINGS)('with %s', (_framing, chunked) => {
    it.each(CLIENTS)('reaches every %s client as 413 with a JSON-RPC body', async (client, count) => {
      await expectEvery413(client, messages, chunked, count);
    });
  });
});
