import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { GatedTools } from '../fixtures/gated.tools.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSession } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';

/** POSTs a call and resolves once the first SSE event (its id and data) has arrived. */
function postUntilFirstEvent(endpoint: string, headers: Record<string, string>, body: object) {
  return new Promise<{ response: IncomingMessage; firstId: string; firstData: any }>((resolve, reject) => {
    const req = httpRequest(
      endpoint,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          const id = /^id: (.+)$/m.exec(buffer)?.[1];
          const data = /^data: (.+)$/m.exec(buffer)?.[1];
          if (id && data) resolve({ response, firstId: id, firstData: JSON.parse(data) });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('resuming a POST answer after the connection dropped (Streamable HTTP resumability)', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ providers: [GatedTools] });
  });

  afterAll(() => fixture.close());

  it('replays what was missed, then carries the rest of the call, its response included', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const tools = fixture.app.get(GatedTools);
    const call = {
      jsonrpc: '2.0',
      id: 31,
      method: 'tools/call',
      params: { name: 'gated', arguments: {}, _meta: { progressToken: 'resume-1' } },
    };
    const { response, firstId, firstData } = await postUntilFirstEvent(fixture.endpoint, headers, call);
    expect(firstId).toMatch(/^p:[A-Za-z0-9_-]+:1$/);
    expect(firstData.params).toEqual(expect.objectContaining({ progressToken: 'resume-1', progress: 1 }));

    // The connection drops mid-call; that is not a cancellation: the tool keeps running.
    await tools.whenWaiting();
    response.destroy();
    tools.release();

    const resumed = await openSseClient(fixture.endpoint, { headers, lastEventId: firstId });
    const answer = await resumed.waitFor((event) => event.json?.id === 31, 3_000);
    const before = resumed.events.slice(0, answer.index).map((event) => event.json);
    expect(before).toEqual([
      expect.objectContaining({ method: 'notifications/progress', params: expect.objectContaining({ progress: 2 }) }),
    ]);
    expect(answer.json.result.content[0].text).toBe('done after reconnect');
    expect(resumed.events.map((event) => event.id)).toEqual([firstId.replace(/1$/, '2'), firstId.replace(/1$/, '3')]);
    await resumed.ended;
  });

  it("treats an unknown p: id (another session's, or expired) like any unknown id: own stream, resync", async () => {
    const other = await openSession(fixture.endpoint);
    const sse = await openSseClient(fixture.endpoint, { headers: other.headers, lastEventId: 'p:notmine:1' });
    // A foreign or unknown p: id opens the session's own standalone stream with a resync.
    const resync = await sse.waitFor((event) => event.json?.method === 'notifications/resources/list_changed', 3_000);
    expect(resync.id).toMatch(/^g:/);
    sse.close();
  });
});
