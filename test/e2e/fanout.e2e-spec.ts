/**
 * Fan-out correctness at scale: 1,000 sessions with open GET streams, half of them
 * subscribed to one note. One `notes.update` reaches exactly the subscribed 500, once each, and
 * none of the other 500.
 *
 * "None" is proved with a barrier: afterwards every session (all are also subscribed to
 * db://notes) gets a db://notes update; delivery on one stream is ordered, so any note update
 * sent to a session would be on its stream before that barrier.
 *
 * File descriptors: 1,000 client sockets + 1,000 server sockets + a small POST pool, all in this
 * process (`ulimit -n` is 20000 in the reference environment; nothing is raised here).
 */
import { jest } from '@jest/globals';
import { ResourceNotificationService } from '@app/mcp';
import http from 'node:http';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { initializeRequest } from '../support/raw-http.js';
import { isUpdated, openSseClient, updatedUris, type SseClient } from '../support/sse-client.js';

const SESSIONS = 1_000;
const BATCH = 50;
const NOTES = 'db://notes';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

describe('fan-out to 1,000 sessions', () => {
  let gateway: RunningGateway;
  let agent: http.Agent;
  const streams: SseClient[] = [];
  const sessionHeaders: Record<string, string>[] = [];
  let noteId: string;
  let noteUri: string;
  let requestId = 1;

  /** One POST on the keep-alive pool. */
  const post = (body: object, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = http.request(gateway.endpoint, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      });
      req.setTimeout(10_000, () => req.destroy(new Error('POST timed out')));
      req.on('error', reject);
      req.on('response', (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined });
        });
      });
      req.end(payload);
    });

  const rpc = async (
    headers: Record<string, string>,
    method: string,
    params: Record<string, unknown>,
  ): Promise<any> => {
    const answer = await post({ jsonrpc: '2.0', id: requestId++, method, params }, headers);
    if (answer.status !== 200) throw new Error(`${method} answered HTTP ${answer.status}`);
    return answer.json;
  };

  const initialize = async (): Promise<Record<string, string>> => {
    const answer = await post(initializeRequest(1));
    const sessionId = answer.headers['mcp-session-id'];
    if (answer.status !== 200 || typeof sessionId !== 'string')
      throw new Error(`initialize answered HTTP ${answer.status}`);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': answer.json.result.protocolVersion };
    const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    if (initialized.status !== 202) throw new Error(`notifications/initialized answered HTTP ${initialized.status}`);
    return headers;
  };

  /** Runs `task(i)` for i in [0, count) in parallel batches of BATCH. */
  const inBatches = async (count: number, task: (i: number) => Promise<void>): Promise<void> => {
    for (let start = 0; start < count; start += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => task(start + k)));
    }
  };

  beforeAll(async () => {
    gateway = await startGateway();
    agent = new http.Agent({ keepAlive: true, maxSockets: BATCH });

    const writer = await initialize();
    sessionHeaders.push(writer);
    const created = await rpc(writer, 'tools/call', {
      name: 'notes.create',
      arguments: { title: 'Fan-out', body: 'v1' },
    });
    ({ id: noteId, uri: noteUri } = JSON.parse(created.result.content[0].text));

    const readers: Record<string, string>[] = new Array(SESSIONS);
    await inBatches(SESSIONS, async (i) => {
      const headers = await initialize();
      readers[i] = headers;
      const all = await rpc(headers, 'resources/subscribe', { uri: NOTES });
      if (all.result?.subscribed !== true) throw new Error(`subscribe ${NOTES} failed: ${JSON.stringify(all)}`);
      if (i % 2 === 0) {
        const one = await rpc(headers, 'resources/subscribe', { uri: noteUri });
        if (one.result?.subscribed !== true) throw new Error(`subscribe ${noteUri} failed: ${JSON.stringify(one)}`);
      }
    });
    sessionHeaders.push(...readers);

    await inBatches(SESSIONS, async (i) => {
      const stream = await openSseClient(gateway.endpoint, { headers: readers[i], timeoutMs: 10_000 });
      streams[i] = stream;
      if (stream.status !== 200) throw new Error(`GET stream ${i} answered HTTP ${stream.status}`);
    });
  }, 60_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    for (const stream of streams) stream?.close();
    agent?.destroy();
    await gateway?.close();
  }, 30_000);

  it('one notes.update reaches exactly the 500 subscribed sessions, once each, and none of the others', async () => {
    expect(streams.filter(Boolean)).toHaveLength(SESSIONS);
    const notifier = gateway.app.get(ResourceNotificationService);
    const notify = jest.spyOn(notifier, 'notifyResourceUpdated');

    const updated = await rpc(sessionHeaders[0], 'tools/call', {
      name: 'notes.update',
      arguments: { id: noteId, body: 'v2' },
    });
    expect(updated.result.isError).toBeFalsy();
    expect(JSON.parse(updated.result.content[0].text)).toEqual(expect.objectContaining({ id: noteId, uri: noteUri }));

    // The notification the tool sent, and how many sessions it reached.
    expect(notify.mock.calls.map(([uri]) => uri)).toEqual([noteUri]);
    expect(await notify.mock.results[0].value).toEqual({ sessions: SESSIONS / 2, listeners: 0 });

    // Barrier: every session is subscribed to db://notes.
    const marks = streams.map((stream) => stream.events.length);
    const reached = await notifier.notifyResourceUpdated(NOTES);
    expect(reached).toEqual({ sessions: SESSIONS, listeners: 0 });
    const barriers = await Promise.all(streams.map((stream, i) => stream.waitFor(isUpdated(NOTES), 15_000, marks[i])));

    let subscribedReceivedOnce = 0;
    let othersReceivedNothing = 0;
    const wrong: string[] = [];
    streams.forEach((stream, i) => {
      const noteUpdates = updatedUris(stream.events.slice(0, barriers[i].index)).filter(
        (uri) => uri === noteUri,
      ).length;
      const expected = i % 2 === 0 ? 1 : 0;
      if (noteUpdates !== expected) wrong.push(`session ${i}: ${noteUpdates} note updates, expected ${expected}`);
      else if (expected === 1) subscribedReceivedOnce++;
      else othersReceivedNothing++;
    });
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(subscribedReceivedOnce).toBe(SESSIONS / 2);
    expect(othersReceivedNothing).toBe(SESSIONS / 2);
  }, 30_000);
});
