/**
 * Resource subscriptions over real HTTP and SSE (docs/subscriptions.md, docs/decisions/0001-wire-profiles.md):
 * who receives `notifications/resources/updated`, and who provably does not.
 *
 * "Receives nothing" is proved with a barrier: after the action, a second notification is sent
 * for a URI the session IS subscribed to; delivery on one stream is ordered, so once the barrier
 * arrived, anything the action had sent would already be there.
 */
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { useGatewaySessions } from '../support/gateway-sessions.js';
import { openSession } from '../support/raw-http.js';
import {
  isListChanged,
  isUpdated,
  rawSession,
  toolJson,
  updatedUris,
  type RawSession,
  type SseClient,
  type SseClientEvent,
} from '../support/sse-client.js';

const CONTROL_URI = 'system://info';
const NOTES_URI = 'db://notes';
const EVENT_ID = /^g:[A-Za-z0-9_-]+:\d+$/;

describe('resources/subscribe and resources/unsubscribe (default wire profile)', () => {
  const harness = useGatewaySessions();
  const { newSession, openStream } = harness;

  const createNote = async (
    session: RawSession,
    title = 'A note',
    body = 'Body',
  ): Promise<{ id: string; uri: string }> => toolJson(await session.callTool('notes.create', { title, body }));

  const updateNote = async (session: RawSession, id: string, body: string) =>
    toolJson(await session.callTool('notes.update', { id, body }));

  const expectSubscribed = async (session: RawSession, uri: string): Promise<void> => {
    const response = await session.subscribe(uri);
    expect(response.error).toBeUndefined();
    expect(response.result).toEqual({ subscribed: true, uri });
  };

  /**
   * Sends `resources/updated` for `uri` (which every given stream's session is subscribed to)
   * and returns, per stream, the events that arrived before it.
   */
  const barrier = async (uri: string, ...targets: SseClient[]): Promise<SseClientEvent[][]> => {
    const marks = targets.map((stream) => stream.events.length);
    await harness.notifier.notifyResourceUpdated(uri);
    const arrived = await Promise.all(targets.map((stream, i) => stream.waitFor(isUpdated(uri), 5_000, marks[i])));
    return arrived.map((event, i) => targets[i].events.slice(0, event.index));
  };

  it('subscribe before opening the stream, then an update arrives as a framed SSE event', async () => {
    const writer = await newSession();
    const { id, uri } = await createNote(writer, 'Before');
    const reader = await newSession();
    await expectSubscribed(reader, uri);

    const stream = await openStream(reader);
    await updateNote(writer, id, 'changed');

    const event = await stream.waitFor(isUpdated(uri));
    expect(event.event).toBe('message');
    expect(event.id).toMatch(EVENT_ID);
    expect(event.json).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
  });

  it('subscribe after opening the stream: the update arrives too', async () => {
    const writer = await newSession();
    const { id, uri } = await createNote(writer, 'After');
    const reader = await newSession();
    const stream = await openStream(reader);
    await expectSubscribed(reader, uri);

    await updateNote(writer, id, 'changed');
    await stream.waitFor(isUpdated(uri));
  });

  it('two sessions with different subscriptions: each receives only its own URI', async () => {
    const writer = await newSession();
    const first = await createNote(writer, 'First');
    const second = await createNote(writer, 'Second');
    const a = await newSession();
    const b = await newSession();
    await expectSubscribed(a, first.uri);
    await expectSubscribed(b, second.uri);
    const streamA = await openStream(a);
    const streamB = await openStream(b);

    await updateNote(writer, first.id, 'only A should hear this');
    await streamA.waitFor(isUpdated(first.uri));

    // Barrier for B: an update of the URI B is subscribed to.
    const markB = streamB.events.length;
    await updateNote(writer, second.id, 'B hears this');
    const barrierEvent = await streamB.waitFor(isUpdated(second.uri), 5_000, markB);
    expect(updatedUris(streamB.events.slice(0, barrierEvent.index + 1))).toEqual([second.uri]);
    // And A never heard about the second note.
    const [beforeA] = await barrier(first.uri, streamA);
    expect(updatedUris(beforeA)).toEqual([first.uri]);
  });

  it('matching is exact: a db://notes subscriber hears nothing about db://notes/<id>', async () => {
    const writer = await newSession();
    const { id } = await createNote(writer, 'Exact');
    const reader = await newSession();
    await expectSubscribed(reader, NOTES_URI);
    const stream = await openStream(reader);

    await updateNote(writer, id, 'not for db://notes');
    const [before] = await barrier(NOTES_URI, stream);
    expect(updatedUris(before)).toEqual([]);
  });

  it('unsubscribe answers {unsubscribed: true, uri}; a later update is not delivered', async () => {
    const writer = await newSession();
    const { id, uri } = await createNote(writer, 'Unsubscribe');
    const reader = await newSession();
    await expectSubscribed(reader, uri);
    await expectSubscribed(reader, CONTROL_URI);
    const stream = await openStream(reader);

    const response = await reader.unsubscribe(uri);
    expect(response.result).toEqual({ unsubscribed: true, uri });
    await updateNote(writer, id, 'nobody listens');

    const [before] = await barrier(CONTROL_URI, stream);
    expect(updatedUris(before)).toEqual([]);
    expect(await harness.notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 0, listeners: 0 });
  });

  it('unsubscribe is always safe: twice, never subscribed, unknown URI', async () => {
    const writer = await newSession();
    const { uri } = await createNote(writer, 'Idempotent');
    const reader = await newSession();
    await expectSubscribed(reader, uri);

    for (const target of [uri, uri, NOTES_URI, 'db://never/registered', 'db://notes/*']) {
      const response = await reader.unsubscribe(target);
      expect(response.error).toBeUndefined();
      expect(response.result).toEqual({ unsubscribed: true, uri: target });
    }
    expect(await harness.notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 0, listeners: 0 });
  });

  it('re-subscribing is idempotent: one notification per update, not two', async () => {
    const writer = await newSession();
    const { id, uri } = await createNote(writer, 'Twice');
    const reader = await newSession();
    await expectSubscribed(reader, uri);
    await expectSubscribed(reader, uri);
    await expectSubscribed(reader, CONTROL_URI);
    const stream = await openStream(reader);
    await expectSubscribed(reader, uri);

    await updateNote(writer, id, 'once');
    const [before] = await barrier(CONTROL_URI, stream);
    expect(updatedUris(before)).toEqual([uri]);
    expect(await harness.notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 1, listeners: 0 });
  });

  it.each([
    ['a different case', 'db://Notes'],
    ['a different case of the path', 'db://NOTES'],
    ['a single-level wildcard', 'db://notes/*'],
    ['a recursive wildcard', 'db://notes/**'],
    ['a regular expression', 'db://.*'],
    ['a URI that was never registered', 'db://nowhere/1'],
  ])('subscribing to %s (%s) answers -32601 Resource not found', async (_what, uri) => {
    const session = await newSession();
    const response = await session.subscribe(uri);
    expect(response.result).toBeUndefined();
    expect(response.error).toEqual({
      code: -32601,
      message: 'Resource not found',
      data: expect.objectContaining({ detail: `Resource '${uri}' is not registered`, uri }),
    });
    // Nothing was stored.
    expect(await harness.notifier.notifyResourceUpdated(uri)).toEqual({ sessions: 0, listeners: 0 });
  });

  it.each(['resources/subscribe', 'resources/unsubscribe'])(
    '%s without uri, or with a non-string uri, answers -32602 naming uri',
    async (method) => {
      const session = await newSession();
      for (const params of [{}, { uri: 42 }, { uri: null }]) {
        const response = await session.rpc(method, params);
        expect(response.error).toEqual(
          expect.objectContaining({
            code: -32602,
            message: 'Invalid params',
            data: expect.objectContaining({ detail: expect.stringContaining('uri') }),
          }),
        );
      }
    },
  );

  it('notes.delete sends resources/updated to the note subscriber, and a later subscribe fails with -32601', async () => {
    const writer = await newSession();
    const { id, uri } = await createNote(writer, 'Doomed');
    const reader = await newSession();
    await expectSubscribed(reader, uri);
    await expectSubscribed(reader, NOTES_URI);
    const stream = await openStream(reader);

    const deleted = toolJson(await writer.callTool('notes.delete', { id }));
    expect(deleted).toEqual({ id, deleted: true });
    await stream.waitFor(isUpdated(uri));
    await stream.waitFor(isUpdated(NOTES_URI));
    await stream.waitFor(isListChanged);

    const late = await newSession();
    const response = await late.subscribe(uri);
    expect(response.error).toEqual({
      code: -32601,
      message: 'Resource not found',
      data: expect.objectContaining({ detail: `Resource '${uri}' is not registered`, uri }),
    });
  });
});

describe('resources/subscribe in the strict wire profile, over raw HTTP', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_WIRE_PROFILE: 'strict' });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('answers {} to subscribe and unsubscribe, and -32002 with data.uri for an unknown URI', async () => {
    const session = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    expect(await session.subscribe(NOTES_URI)).toEqual(expect.objectContaining({ result: {} }));
    expect(await session.unsubscribe(NOTES_URI)).toEqual(expect.objectContaining({ result: {} }));
    expect(await session.unsubscribe('db://never')).toEqual(expect.objectContaining({ result: {} }));
    const response = await session.subscribe('db://notes/*');
    expect(response.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: expect.objectContaining({ uri: 'db://notes/*', detail: "Resource 'db://notes/*' is not registered" }),
    });
  });
});
