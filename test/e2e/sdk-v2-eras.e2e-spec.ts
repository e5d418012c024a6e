/**
 * The official TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.x) against the
 * reference gateway in each of its three version negotiation modes, over Streamable HTTP and
 * over stdio (`--stdio`, spawned by the SDK's own `StdioClientTransport`; in `'auto'` mode the
 * SDK probes on a sibling process first):
 * - pinned `2026-07-28` and `'auto'` end in the modern era: `server/discover`, every list, call,
 *   read, get and completion the gateway offers, `listen()` for exactly the URIs asked, MRTR
 *   elicitation (`notes.clear`) confirmed and declined, cancellation;
 * - `'legacy'` ends in the 2025 era, unchanged: `initialize`, `resources/subscribe` and
 *   `notifications/resources/updated` on the session, elicitation pushed as a request.
 * Sampling (notes.summarize) has its own spec, sdk-v2-sampling.e2e-spec.ts.
 * "Nothing arrived" is always proved by a later marker notification on the same stream.
 */
import { ResourceNotFoundError, SdkError, SdkErrorCode, type McpSubscription } from '@modelcontextprotocol/client';
import { McpListens } from '@app/mcp/protocol/listen/listens.registry.js';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { within } from '../support/http-wire.js';
import {
  connectSdkV2,
  modeName,
  MODERN_VERSION,
  PINNED,
  rejectionOf,
  toolJson,
  toolText,
  type NegotiationMode,
  type SdkTransportKind,
  type SdkV2Connection,
} from '../support/sdk-v2-clients.js';
import { until } from '../support/until.js';
import { buildGatewayIfNeeded } from '../support/stdio-client.js';

/** Every test boots at most one client (a child process on stdio, two in 'auto' mode). */
const TEST_TIMEOUT_MS = 60_000;
const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/**
 * The SDK's `subscribeResource()` validates the MCP schema's empty result, so the gateway runs
 * with the strict wire profile (docs/subscriptions.md, "Compatibility with the official SDK client").
 */
const GATEWAY_ENV = { MCP_WIRE_PROFILE: 'strict' };
const TOOLS = ['echo', 'add', 'notes.create', 'notes.update', 'notes.delete', 'notes.clear', 'notes.summarize'];
const STATIC_RESOURCES = [
  'system://info',
  'system://metrics',
  'system://tool-metrics',
  'config://gateway',
  'db://notes',
];
const PROMPTS = ['summarize', 'summarize-note'];

beforeAll(async () => {
  // The stdio runs spawn the built gateway: `nest build` only when dist is older than the sources.
  await buildGatewayIfNeeded();
}, 240_000);

async function createNote(
  connection: SdkV2Connection,
  title: string,
  body = 'v1',
): Promise<{ id: string; uri: string }> {
  const created = toolJson(await connection.client.callTool({ name: 'notes.create', arguments: { title, body } }));
  expect(created).toEqual({ id: expect.any(String), uri: `db://notes/${created.id}` });
  return created;
}

async function updateNote(connection: SdkV2Connection, id: string, body: string): Promise<void> {
  const updated = toolJson(await connection.client.callTool({ name: 'notes.update', arguments: { id, body } }));
  expect(updated).toMatchObject({ id, uri: `db://notes/${id}` });
}

/** The ids of every note the gateway holds (through the `db://notes` resource). */
async function noteIds(connection: SdkV2Connection): Promise<string[]> {
  const read = await connection.client.readResource({ uri: 'db://notes' }, { cacheMode: 'bypass' });
  return (JSON.parse((read.contents[0] as { text: string }).text) as { id: string }[]).map((note) => note.id);
}

describe.each<SdkTransportKind>(['http', 'stdio'])('SDK v2 client over %s', (kind) => {
  let gateway: RunningGateway | undefined;
  let connection: SdkV2Connection | undefined;

  beforeAll(async () => {
    if (kind === 'http') gateway = await startGateway(GATEWAY_ENV);
  });

  afterAll(async () => {
    await gateway?.close();
  });

  afterEach(async () => {
    await connection?.close();
    connection = undefined;
  }, 15_000);

  const connect = async (mode: NegotiationMode, options: { elicitation?: boolean } = {}) => {
    connection = await connectSdkV2(kind, { mode, endpoint: gateway?.endpoint, env: GATEWAY_ENV, ...options });
    return connection;
  };

  describe.each<NegotiationMode>([PINNED, 'auto'])('negotiation %p ends in the modern era', (mode) => {
    it(
      `${modeName(mode)}: server/discover, then no session`,
      async () => {
        const { client, http } = await connect(mode);
        expect(client.getProtocolEra()).toBe('modern');
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
        const discovered = client.getDiscoverResult();
        expect(discovered?.supportedVersions).toEqual([MODERN_VERSION]);
        expect(discovered?.capabilities).toMatchObject({
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          completions: {},
        });
        expect(client.getServerVersion()).toMatchObject({ name: 'mcp-resource-gateway' });
        // The modern era is stateless: no session is minted or echoed.
        if (http) expect(http.sessionId).toBeUndefined();
        // An explicit discover answers the same.
        await expect(client.discover()).resolves.toMatchObject({ supportedVersions: [MODERN_VERSION] });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `${modeName(mode)}: every list, call, read, get and completion the gateway offers`,
      async () => {
        const connected = await connect(mode);
        const { client } = connected;
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(TOOLS));
        expect(toolJson(await client.callTool({ name: 'echo', arguments: { text: 'héllo modern' } }))).toEqual({
          text: 'héllo modern',
        });
        const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
        expect(sum.structuredContent).toEqual({ sum: 42 });

        const { resources } = await client.listResources();
        expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining(STATIC_RESOURCES));
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(Array.isArray(resourceTemplates)).toBe(true);
        const info = await client.readResource({ uri: 'system://info' });
        // The version of the reading request itself, not the 2025 one initialize would report.
        expect(JSON.parse((info.contents[0] as { text: string }).text)).toMatchObject({
          name: 'mcp-resource-gateway',
          protocolVersion: MODERN_VERSION,
        });

        // notes.*: create, read the runtime resource, update, delete.
        const note = await createNote(connected, 'modern note', 'first body');
        expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(note.uri);
        const read = await client.readResource({ uri: note.uri }, { cacheMode: 'bypass' });
        expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
          id: note.id,
          title: 'modern note',
          body: 'first body',
        });
        await updateNote(connected, note.id, 'second body');
        const latest = await client.readResource({ uri: 'db://notes/latest' }, { cacheMode: 'bypass' });
        expect(JSON.parse((latest.contents[0] as { text: string }).text)).toMatchObject({ body: 'second body' });
        const deleted = toolJson(await client.callTool({ name: 'notes.delete', arguments: { id: note.id } }));
        expect(deleted).toEqual({ id: note.id, deleted: true });
        const again = await client.callTool({ name: 'notes.delete', arguments: { id: note.id } });
        expect(again.isError).toBe(true);
        // A missing resource is -32602 in the modern era (never -32002).
        const missing = await rejectionOf(client.readResource({ uri: note.uri }, { cacheMode: 'bypass' }));
        expect(missing).toBeInstanceOf(ResourceNotFoundError);
        expect(missing.code).toBe(-32602);
        expect(missing.data).toMatchObject({ uri: note.uri });

        const { prompts } = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(PROMPTS));
        const summarize = await client.getPrompt({
          name: 'summarize',
          arguments: { text: 'modern text', style: 'detailed' },
        });
        expect((summarize.messages[0].content as { text: string }).text).toContain('modern text');
        const other = await createNote(connected, 'prompted', 'prompt body');
        const summarizeNote = await client.getPrompt({ name: 'summarize-note', arguments: { id: other.id } });
        expect((summarizeNote.messages[0].content as { text: string }).text).toContain('prompt body');

        const completion = await client.complete({
          ref: { type: 'ref/prompt', name: 'summarize' },
          argument: { name: 'style', value: 'de' },
        });
        expect(completion.completion.values).toEqual(['detailed']);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `${modeName(mode)}: listen() receives notifications/resources/updated for exactly the URIs asked`,
      async () => {
        const connected = await connect(mode);
        const { client } = connected;
        const watched = await createNote(connected, 'watched');
        const ignored = await createNote(connected, 'ignored');
        const subscription = await client.listen({
          resourceSubscriptions: [watched.uri, 'db://notes/no-such-note'],
        });
        try {
          // The honoured subset: the unknown URI is left out.
          expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [watched.uri] });
          const from = connected.updates.length;
          await updateNote(connected, ignored.id, 'not asked for');
          await updateNote(connected, watched.id, 'asked for');
          const arrived = await connected.nextUpdate((n) => n.params.uri === watched.uri, from);
          expect(arrived.params._meta?.[SUBSCRIPTION_ID_META]).toBeDefined();
          // The watched update is the marker: the ignored one would have come first on the stream.
          expect(connected.updates.slice(from).map((n) => n.params.uri)).toEqual([watched.uri]);
        } finally {
          await subscription.close();
        }
        await expect(subscription.closed).resolves.toBe('local');
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `${modeName(mode)}: notes.clear asks for confirmation (MRTR), confirmed and declined`,
      async () => {
        const connected = await connect(mode);
        const { client } = connected;
        const kept = await createNote(connected, 'kept');
        await createNote(connected, 'kept too');
        const count = (await noteIds(connected)).length;

        connected.elicitAnswer = { action: 'decline' };
        const declined = await client.callTool({ name: 'notes.clear', arguments: {} });
        expect(toolJson(declined)).toEqual({ deleted: 0, confirmed: false });
        expect(connected.elicitations).toHaveLength(1);
        expect(connected.elicitations[0]).toMatchObject({
          message: `Delete all ${count} notes? This cannot be undone.`,
          requestedSchema: { properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
        });
        expect(await noteIds(connected)).toContain(kept.id);

        connected.elicitAnswer = { action: 'accept', content: { confirm: true } };
        const confirmed = await client.callTool({ name: 'notes.clear', arguments: {} });
        expect(toolJson(confirmed)).toEqual({ deleted: count, confirmed: true });
        expect(connected.elicitations).toHaveLength(2);
        expect(await noteIds(connected)).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `${modeName(mode)}: a client that cannot elicit gets a tool error from notes.clear, nothing deleted`,
      async () => {
        const connected = await connect(mode, { elicitation: false });
        const note = await createNote(connected, 'survivor');
        const result = await connected.client.callTool({ name: 'notes.clear', arguments: {} });
        expect(result.isError).toBe(true);
        expect(toolText(result)).toContain('cannot show a confirmation form');
        expect(await noteIds(connected)).toContain(note.id);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `${modeName(mode)}: cancellation — an aborted call and a closed listen end, the client keeps working`,
      async () => {
        const connected = await connect(mode);
        const { client } = connected;
        const note = await createNote(connected, 'cancelled');

        // A call aborted while the client is answering its input request (between MRTR rounds).
        const abort = new AbortController();
        let asked!: () => void;
        const askedPromise = new Promise<void>((resolve) => (asked = resolve));
        // The handler answers only once the call was aborted (then the answer is of no use).
        connected.elicitAnswer = () =>
          new Promise((resolve) => {
            asked();
            abort.signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
          });
        const call = client.callTool({ name: 'notes.clear', arguments: {} }, { signal: abort.signal });
        await within(askedPromise, 10_000, 'the elicitation handler was not asked');
        abort.abort(new Error('user gave up'));
        await expect(call).rejects.toThrow();
        expect(await noteIds(connected)).toContain(note.id);

        // A listen closed through its signal ends locally; a new listen gets exactly one update.
        const listens = gateway?.app.get(McpListens);
        const baseline = listens?.size ?? 0;
        const listenAbort = new AbortController();
        const first: McpSubscription = await client.listen(
          { resourceSubscriptions: [note.uri] },
          { signal: listenAbort.signal },
        );
        if (listens) expect(listens.size).toBe(baseline + 1);
        listenAbort.abort();
        await expect(within(first.closed, 10_000, 'the aborted listen did not close')).resolves.toBe('local');
        // The server lets the listen go (HTTP: when the answer stream closes).
        if (listens) await until(() => listens.size === baseline, 'the server still holds the aborted listen');

        const second = await client.listen({ resourceSubscriptions: [note.uri] });
        try {
          const from = connected.updates.length;
          await updateNote(connected, note.id, 'after the cancel');
          const arrived = await connected.nextUpdate((n) => n.params.uri === note.uri, from);
          const marker = await createNote(connected, 'marker');
          await second.close();
          // Exactly one: the closed listen delivered nothing.
          expect(connected.updates.slice(from)).toEqual([arrived]);
          expect(toolJson(await client.callTool({ name: 'echo', arguments: { text: marker.id } }))).toEqual({
            text: marker.id,
          });
        } finally {
          await second.close();
        }
      },
      TEST_TIMEOUT_MS,
    );
    it(
      `${modeName(mode)}: listChanged handlers ride the listen the client opens for them`,
      async () => {
        // Earlier tests' changes may still be announced (coalesced): wait for a list holding this note.
        const changes: string[][] = [];
        const wanted: { uri?: string } = {};
        let changed!: () => void;
        const refreshed = new Promise<void>((resolve) => (changed = resolve));
        const connected = await connectSdkV2(kind, {
          mode,
          endpoint: gateway?.endpoint,
          env: GATEWAY_ENV,
          clientOptions: {
            listChanged: {
              resources: {
                debounceMs: 0,
                onChanged: (error, resources) => {
                  if (error || !resources) return;
                  changes.push(resources.map((resource) => resource.uri));
                  if (wanted.uri !== undefined && changes.at(-1)!.includes(wanted.uri)) changed();
                },
              },
            },
          },
        });
        connection = connected;
        const opened = connected.client.autoOpenedSubscription;
        expect(opened?.honoredFilter).toEqual({ resourcesListChanged: true });
        const note = await createNote(connected, 'listed');
        wanted.uri = note.uri;
        // The refresh may have landed while notes.create was answering.
        if (changes.some((uris) => uris.includes(note.uri))) changed();
        await within(refreshed, 10_000, `no resources list_changed refresh listing ${note.uri}`);
        expect(changes.at(-1)).toContain(note.uri);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe("negotiation 'legacy' ends in the legacy era, the 2025 behaviour unchanged", () => {
    it(
      'initialize and a session; listen() is refused by the client',
      async () => {
        const { client, http } = await connect('legacy');
        expect(client.getProtocolEra()).toBe('legacy');
        expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
        expect(client.getDiscoverResult()).toBeUndefined();
        if (http) expect(http.sessionId).toEqual(expect.any(String));
        const refused = await rejectionOf(client.listen({ resourceSubscriptions: ['db://notes'] }));
        expect(refused).toBeInstanceOf(SdkError);
        expect(refused.code).toBe(SdkErrorCode.MethodNotSupportedByProtocolVersion);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'lists, calls, reads, gets and completes',
      async () => {
        const connected = await connect('legacy');
        const { client } = connected;
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(TOOLS));
        expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
          sum: 3,
        });
        expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(
          expect.arrayContaining(STATIC_RESOURCES),
        );
        expect(Array.isArray((await client.listResourceTemplates()).resourceTemplates)).toBe(true);
        const info = await client.readResource({ uri: 'system://info' });
        expect(JSON.parse((info.contents[0] as { text: string }).text)).toMatchObject({
          name: 'mcp-resource-gateway',
          protocolVersion: '2025-11-25',
        });
        expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(expect.arrayContaining(PROMPTS));
        const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'legacy text' } });
        expect((prompt.messages[0].content as { text: string }).text).toContain('legacy text');
        const completion = await client.complete({
          ref: { type: 'ref/prompt', name: 'summarize' },
          argument: { name: 'style', value: 'b' },
        });
        expect(completion.completion.values).toEqual(['brief']);
        // The legacy era keeps its resource-not-found code (strict profile: -32002 with data.uri),
        // which the SDK v2 client surfaces as its ResourceNotFoundError (as it does -32602 + uri).
        const note = await createNote(connected, 'legacy note');
        toolJson(await client.callTool({ name: 'notes.delete', arguments: { id: note.id } }));
        const missing = await rejectionOf(client.readResource({ uri: note.uri }));
        expect(missing).toBeInstanceOf(ResourceNotFoundError);
        expect(missing.data).toMatchObject({ uri: note.uri });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'resources/subscribe: resources/updated for the subscribed URI only',
      async () => {
        const connected = await connect('legacy');
        const { client } = connected;
        const watched = await createNote(connected, 'legacy watched');
        const ignored = await createNote(connected, 'legacy ignored');
        await client.subscribeResource({ uri: watched.uri });
        const from = connected.updates.length;
        await updateNote(connected, ignored.id, 'not subscribed');
        await updateNote(connected, watched.id, 'subscribed');
        const arrived = await connected.nextUpdate((n) => n.params.uri === watched.uri, from);
        expect(arrived.params._meta?.[SUBSCRIPTION_ID_META]).toBeUndefined();
        expect(connected.updates.slice(from).map((n) => n.params.uri)).toEqual([watched.uri]);

        await client.unsubscribeResource({ uri: watched.uri });
        await client.subscribeResource({ uri: ignored.uri });
        const after = connected.updates.length;
        await updateNote(connected, watched.id, 'unsubscribed');
        await updateNote(connected, ignored.id, 'marker');
        await connected.nextUpdate((n) => n.params.uri === ignored.uri, after);
        expect(connected.updates.slice(after).map((n) => n.params.uri)).toEqual([ignored.uri]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'notes.clear pushes elicitation/create to the client: declined, then confirmed',
      async () => {
        const connected = await connect('legacy');
        const { client } = connected;
        await createNote(connected, 'legacy kept');
        const count = (await noteIds(connected)).length;
        connected.elicitAnswer = { action: 'decline' };
        expect(toolJson(await client.callTool({ name: 'notes.clear', arguments: {} }))).toEqual({
          deleted: 0,
          confirmed: false,
        });
        expect(connected.elicitations[0]).toMatchObject({
          message: `Delete all ${count} notes? This cannot be undone.`,
        });
        connected.elicitAnswer = { action: 'accept', content: { confirm: true } };
        expect(toolJson(await client.callTool({ name: 'notes.clear', arguments: {} }))).toEqual({
          deleted: count,
          confirmed: true,
        });
        expect(await noteIds(connected)).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );
  });
  describe.each(['legacy', 'modern'] as const)('a gateway serving only the %s era (MCP_PROTOCOL_ERAS)', (eras) => {
    let oneEra: RunningGateway | undefined;
    const env = { ...GATEWAY_ENV, MCP_PROTOCOL_ERAS: eras };

    beforeAll(async () => {
      if (kind === 'http') oneEra = await startGateway(env);
    });

    afterAll(async () => {
      await oneEra?.close();
    });

    const connectTo = async (mode: NegotiationMode) => {
      connection = await connectSdkV2(kind, { mode, endpoint: oneEra?.endpoint, env });
      return connection;
    };
    const served: NegotiationMode[] = eras === 'legacy' ? ['auto', 'legacy'] : ['auto', PINNED];
    const refused: NegotiationMode = eras === 'legacy' ? PINNED : 'legacy';

    it.each(served)(
      `%p connects in the ${eras} era and is served`,
      async (mode) => {
        const connected = await connectTo(mode);
        expect(connected.client.getProtocolEra()).toBe(eras);
        expect(
          toolJson(await connected.client.callTool({ name: 'echo', arguments: { text: `${eras} only` } })),
        ).toEqual({ text: `${eras} only` });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `${modeName(refused)} fails to connect, loudly`,
      async () => {
        await expect(connectTo(refused)).rejects.toThrow();
      },
      TEST_TIMEOUT_MS,
    );
  });
});

describe('SDK v2 client over http: a gateway shutting down', () => {
  it.each<NegotiationMode>([PINNED, 'auto'])(
    '%p: an open listen is answered with its completion result (closed: graceful)',
    async (mode) => {
      const gateway = await startGateway(GATEWAY_ENV);
      const connected = await connectSdkV2('http', { mode, endpoint: gateway.endpoint });
      try {
        const subscription = await connected.client.listen({
          resourceSubscriptions: ['db://notes'],
          toolsListChanged: true,
        });
        expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['db://notes'], toolsListChanged: true });
        const closing = gateway.close();
        await expect(within(subscription.closed, 10_000, 'the listen did not end')).resolves.toBe('graceful');
        await closing;
      } finally {
        await connected.close();
        await gateway.close().catch(() => undefined);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
