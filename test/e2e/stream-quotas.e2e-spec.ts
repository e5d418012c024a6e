/**
 * The budgets of long-lived streams: a listen whose slow client was cut off and then
 * drained gives its place back (it kept it for ever, so with `maxListens` reached every new
 * listen got 503), and one caller cannot take an instance's whole budget of listens
 * (`maxListensPerCaller`) or of held event streams (`maxStreamsPerCaller`: standalone GET
 * streams and legacy HTTP+SSE). The caller is the principal with `auth`, else the client's
 * address (never `X-Forwarded-For`).
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import http, { type IncomingMessage } from 'node:http';
import { McpResourceService, ResourceNotificationService } from '@app/mcp';
import { McpListens } from '@app/mcp/protocol/listen/listens.registry.js';
import { McpEventStreams } from '@app/mcp/transports/http/event-streams.js';
import { McpLegacySseHandler } from '@app/mcp/transports/sse/mcp-legacy-sse.handler.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSse, rpc, within } from '../support/http-wire.js';
import { authedSession, bearer } from '../support/oauth/auth-http.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { openStalled } from '../support/stalled-stream.js';
import { until } from '../support/until.js';

const BIG_URI = `mem://big/${'x'.repeat(7_000)}`;
const MAX_FLOOD = 3_000;

const LISTEN_HEADERS = {
  'content-type': 'application/json',
  accept: 'text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'subscriptions/listen',
};
const listenBody = (id: string) =>
  JSON.stringify(
    rpc(id, 'subscriptions/listen', {
      notifications: { resourceSubscriptions: [BIG_URI] },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    }),
  );

/** The status and body of a request that is refused, or an open SSE stream to close later. */
interface Answer {
  status: number;
  body: any;
  close(): void;
}

/**
 * Sends a request from `localAddress` (any 127.x.y.z reaches the server on 127.0.0.1) and
 * resolves on its headers: the JSON body of a refusal, or the stream left open.
 */
function requestFrom(
  url: string,
  localAddress: string,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, localAddress, agent: false });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const close = () => {
        res.destroy();
        req.destroy();
      };
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, body: undefined, close });
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, close }));
    });
    req.end(body);
  });
}

describe('a listen cut off for being slow (maxListens: 1)', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      mcp: {
        modern: { maxListens: 1 },
        delivery: { maxStreamBufferBytes: 32 * 1024 },
        transport: { keepAliveMs: 60_000 },
      },
    });
    fixture.app.get(McpResourceService).register(BIG_URI, () => 'big', { name: 'big' });
  });

  afterAll(() => fixture.close());

  it('gives its place back once the server closed it, even when the client then drains it cleanly', async () => {
    const port = Number(new URL(fixture.origin).port);
    const listens = fixture.app.get(McpListens);
    const notifier = fixture.app.get(ResourceNotificationService);
    const slow = await openStalled(port, {
      method: 'POST',
      path: '/mcp',
      headers: LISTEN_HEADERS,
      body: listenBody('slow'),
      pauseWhen: (received) => received.includes('acknowledged'),
    });
    expect(listens.size).toBe(1);

    let sent = 0;
    while (listens.size > 0 && sent < MAX_FLOOD) {
      await notifier.notifyResourceUpdated(BIG_URI);
      sent++;
      if (sent % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // The client reads everything: the stream ends cleanly, with the retry hint.
    slow.drain();
    await within(slow.ended, 5_000, 'the end of the drained listen');
    expect(slow.received()).toContain('retry: 1000');
    expect(listens.size).toBe(0);

    const next = await openSse(fixture.endpoint, { method: 'POST', headers: LISTEN_HEADERS, body: listenBody('next') });
    try {
      expect(next.status).toBe(200);
      await next.waitForEvent((event) => event.data.includes('acknowledged'));
    } finally {
      next.close();
      slow.close();
    }
  }, 20_000);
});

describe('per-caller budgets with auth: the principal is the caller', () => {
  const verifier = new StubTokenVerifier();
  let fixture: FixtureApp;
  const open: Array<{ close(): void }> = [];

  beforeAll(async () => {
    fixture = await startFixtureApp({
      mcp: {
        sse: {},
        auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [STUB_ISSUER], verifier },
        modern: { maxListensPerCaller: 2 },
        limits: { maxStreamsPerCaller: 2 },
      },
    });
    fixture.app.get(McpResourceService).register(BIG_URI, () => 'big', { name: 'big' });
  });

  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });

  afterAll(() => fixture.close());

  const listen = (token: string, id: string) =>
    openSse(fixture.endpoint, {
      method: 'POST',
      headers: { ...LISTEN_HEADERS, ...bearer(token) },
      body: listenBody(id),
    }).then((stream) => (open.push(stream), stream));

  it('refuses a third listen of one principal with 429 -32004, serves another principal, and frees the place on close', async () => {
    const alice = verifier.mint({ subject: 'alice' });
    const listens = fixture.app.get(McpListens);
    const first = await listen(alice, 'a1');
    await first.waitForEvent((event) => event.data.includes('acknowledged'));
    await (await listen(alice, 'a2')).waitForEvent((event) => event.data.includes('acknowledged'));

    // A new token of the same principal is the same caller.
    const refused = await rawPost(fixture.endpoint, listenBody('a3'), {
      ...LISTEN_HEADERS,
      accept: 'application/json, text/event-stream',
      ...bearer(verifier.mint({ subject: 'alice' })),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 'a3',
      error: {
        code: -32004,
        message: 'Too many listens',
        data: {
          limit: 2,
          detail:
            'This caller already holds its limit of 2 subscriptions/listen streams; close one before opening another',
        },
      },
    });

    const bob = await listen(verifier.mint({ subject: 'bob' }), 'b1');
    await bob.waitForEvent((event) => event.data.includes('acknowledged'));

    first.close();
    await until(() => listens.heldBy(callerOf('alice')) === 1, "alice's first listen let go");
    const again = await listen(alice, 'a4');
    await again.waitForEvent((event) => event.data.includes('acknowledged'));
  });

  it('counts the GET streams of distinct sessions and legacy SSE streams together; the GETs of one session share a place', async () => {
    const alice = verifier.mint({ subject: 'alice' });
    const streams = fixture.app.get(McpEventStreams);
    const get = async (session: { headers: Record<string, string> }) => {
      const stream = await openSse(fixture.endpoint, {
        headers: { ...session.headers, ...bearer(alice), accept: 'text/event-stream' },
      });
      open.push(stream);
      return stream;
    };
    const s1 = await authedSession(fixture.endpoint, alice);
    const s2 = await authedSession(fixture.endpoint, alice);
    const s3 = await authedSession(fixture.endpoint, alice);
    const first = await get(s1);
    expect(first.status).toBe(200);
    // A reconnect of the same session replaces its stream without a second place.
    const replacement = await get(s1);
    expect(replacement.status).toBe(200);
    await within(first.ended, 5_000, 'the replaced stream ended');
    const legacy = await openSse(`${fixture.origin}/sse`, {
      headers: { accept: 'text/event-stream', ...bearer(alice) },
    });
    open.push(legacy);
    expect(legacy.status).toBe(200);
    expect(streams.heldBy(callerOf('alice'))).toBe(2);

    const refused = await openSseOrJson(fixture.endpoint, { ...s3.headers, ...bearer(alice) });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: -32004,
      message: 'Too many streams',
      data: {
        limit: 2,
        detail: 'This caller already holds its limit of 2 open event streams; close one before opening another',
      },
    });
    const legacyRefused = await openSseOrJson(`${fixture.origin}/sse`, bearer(alice));
    expect(legacyRefused.status).toBe(429);

    // Another principal has places of its own.
    const bob = verifier.mint({ subject: 'bob' });
    const bobs = await openSse(`${fixture.origin}/sse`, { headers: { accept: 'text/event-stream', ...bearer(bob) } });
    open.push(bobs);
    expect(bobs.status).toBe(200);

    legacy.close();
    await until(() => streams.heldBy(callerOf('alice')) === 1, "alice's legacy stream let go");
    const third = await get(s2);
    expect(third.status).toBe(200);
  });
});

describe('per-caller budgets without auth: the client address is the caller', () => {
  let fixture: FixtureApp;
  const open: Answer[] = [];

  beforeAll(async () => {
    fixture = await startFixtureApp({
      mcp: { modern: { maxListensPerCaller: 1 }, limits: { maxStreamsPerCaller: 1 } },
    });
    fixture.app.get(McpResourceService).register(BIG_URI, () => 'big', { name: 'big' });
  });

  afterEach(() => {
    for (const answer of open.splice(0)) answer.close();
  });

  afterAll(() => fixture.close());

  const listenFrom = async (address: string, id: string, headers: Record<string, string> = {}) => {
    const answer = await requestFrom(fixture.endpoint, address, {
      method: 'POST',
      headers: { ...LISTEN_HEADERS, accept: 'application/json, text/event-stream', ...headers },
      body: listenBody(id),
    });
    open.push(answer);
    return answer;
  };

  it('counts listens per address, whatever X-Forwarded-For claims', async () => {
    expect((await listenFrom('127.0.0.2', 'x1')).status).toBe(200);
    const spoofed = await listenFrom('127.0.0.2', 'x2', { 'x-forwarded-for': '203.0.113.9' });
    expect(spoofed.status).toBe(429);
    expect(spoofed.body.error.code).toBe(-32004);
    expect((await listenFrom('127.0.0.3', 'y1')).status).toBe(200);
  });

  it('counts GET streams per address', async () => {
    const session = await openSession(fixture.endpoint);
    const other = await openSession(fixture.endpoint);
    const getFrom = async (address: string, headers: Record<string, string>) => {
      const answer = await requestFrom(fixture.endpoint, address, {
        headers: { ...headers, accept: 'text/event-stream' },
      });
      open.push(answer);
      return answer;
    };
    expect((await getFrom('127.0.0.4', session.headers)).status).toBe(200);
    expect((await getFrom('127.0.0.4', other.headers)).status).toBe(429);
    expect((await getFrom('127.0.0.5', other.headers)).status).toBe(200);
  });
});

describe('legacy HTTP+SSE streams are sessions to be', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ mcp: { sse: {}, sessions: { max: 1 } } });
  });

  afterAll(() => fixture.close());

  it('refuses a stream past maxSessions with 503 and Retry-After, and takes one again once a stream closed', async () => {
    const first = await openSse(`${fixture.origin}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(first.status).toBe(200);
    const refused = await openSseOrJson(`${fixture.origin}/sse`, {});
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('5');
    expect(refused.body.error.message).toBe('Too many sessions');
    first.close();
    const legacy = fixture.app.get(McpLegacySseHandler);
    await until(() => legacy.size === 0, 'the closed stream let go');
    const next = await openSse(`${fixture.origin}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(next.status).toBe(200);
    next.close();
  });
});

/** The caller key of a stub principal (see `callerKeyOf`). */
function callerOf(subject: string): string {
  return `p:${JSON.stringify([STUB_ISSUER, subject, subject])}`;
}

/** A GET that is expected to be refused: its status, JSON body and Retry-After. */
async function openSseOrJson(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' } });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    retryAfter: response.headers.get('retry-after'),
  };
}
