/**
 * "POST-stream replay gaps are silent": resuming a POST's SSE answer with a
 * `Last-Event-ID` older than its kept history answers 410 "Stream history lost" instead of
 * skipping the lost events; a resume closes the answer it supersedes.
 */
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { GateTools } from '../fixtures/gate.tools.js';
import { Gates } from '../fixtures/gates.js';
import { mcpPostHeaders, openSse, within, type OpenSse } from '../support/http-wire.js';
import { openSession } from '../support/raw-http.js';
import { openSseClient } from '../support/sse-client.js';

const HISTORY = 4;
const STEPS = 10;

describe(`resuming a POST answer (replayBufferSize: ${HISTORY})`, () => {
  let fixture: FixtureApp;
  let gates: Gates;
  let headers: Record<string, string>;
  let answer: OpenSse;
  /** `p:<stream>:` of the answer. */
  let prefix: string;

  beforeAll(async () => {
    fixture = await startFixtureApp({
      providers: [Gates, GateTools],
      mcp: { delivery: { replayBufferSize: HISTORY } },
    });
    gates = fixture.app.get(Gates);
    ({ headers } = await openSession(fixture.endpoint));
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'progress_then_gate',
        arguments: { count: STEPS, gate: 'resume' },
        _meta: { progressToken: 't' },
      },
    };
    answer = await openSse(fixture.endpoint, {
      method: 'POST',
      headers: mcpPostHeaders(headers),
      body: JSON.stringify(call),
    });
    // All steps were sent, and the tool waits at its gate: the answer is still open.
    await answer.waitForEvent((event) => JSON.parse(event.data).params?.progress === STEPS);
    await gates.gate('resume').whenArrived(1);
    prefix = answer.events[0].id!.replace(/\d+$/, '');
  });

  afterAll(async () => {
    gates.openAll();
    answer.close();
    await fixture.close();
  });

  it('numbers the events of the answer p:<stream>:1..n', () => {
    expect(prefix).toMatch(/^p:[A-Za-z0-9_-]+:$/);
    expect(answer.events.map((event) => event.id)).toEqual(
      Array.from({ length: STEPS }, (_, i) => `${prefix}${i + 1}`),
    );
  });

  it.each([1, STEPS - HISTORY - 1])(
    'Last-Event-ID p:<stream>:%s, whose successors were dropped: 410 -32000 "Stream history lost"',
    async (seq) => {
      const lastEventId = `${prefix}${seq}`;
      const response = await openSseClient(fixture.endpoint, { headers, lastEventId });
      try {
        expect(response.status).toBe(410);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        await within(response.ended, 2_000, 'the end of the 410 answer');
        expect(JSON.parse(response.text)).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32000,
            message: 'Stream history lost',
            data: {
              detail: `Events after '${lastEventId}' were dropped from this answer's history; re-issue the request if its result is still needed`,
            },
          },
        });
      } finally {
        response.close();
      }
      // The refused resume changed nothing: the answer still carries the call.
      expect(answer.events).toHaveLength(STEPS);
    },
  );

  it('a resume from the oldest kept position replays the rest, closes the superseded answer, and carries the response', async () => {
    const from = STEPS - HISTORY;
    const resumed = await openSseClient(fixture.endpoint, { headers, lastEventId: `${prefix}${from}` });
    expect(resumed.status).toBe(200);

    await within(answer.ended, 2_000, 'the end of the superseded answer');
    const replayed = await resumed.waitFor((event) => event.id === `${prefix}${STEPS}`);
    expect(resumed.events.slice(0, replayed.index + 1).map((event) => event.id)).toEqual(
      Array.from({ length: HISTORY }, (_, i) => `${prefix}${from + 1 + i}`),
    );

    gates.gate('resume').open();
    const response = await resumed.waitFor((event) => event.json?.id === 7);
    expect(response.json.result.content).toEqual([{ type: 'text', text: `${STEPS} steps, then resume` }]);
    await within(resumed.ended, 2_000, 'the end of the resumed answer');
    // The superseded connection never saw the response.
    expect(answer.events.some((event) => JSON.parse(event.data).id === 7)).toBe(false);
  });
});
