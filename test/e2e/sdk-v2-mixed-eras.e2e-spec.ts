/**
 * Both protocol eras at once on one gateway (docs/decisions/0003-two-protocol-eras-on-one-endpoint.md): a legacy
 * session subscribed with
 * `resources/subscribe` (the SDK v1 client, and the SDK v2 client in `'legacy'` mode) and a modern
 * `subscriptions/listen` (SDK v2, pinned 2026-07-28) on the same URI each receive exactly one
 * `notifications/resources/updated` per change, whether the change comes from
 * `ResourceNotificationService.notifyResourceUpdated(uri)` or from a `notes.update` call; a third
 * client listening on another URI receives nothing. "Exactly one" and "nothing" are proved by a
 * marker notification every client asked for, sent afterwards on the same streams.
 */
import { ResourceNotificationService } from '@app/mcp';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpSubscription } from '@modelcontextprotocol/client';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { connectSdkV2, PINNED, toolJson, type SdkV2Connection } from '../support/sdk-v2-clients.js';

/** A static resource every client also asks for: its update is the marker. */
const MARKER_URI = 'system://info';
const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/** The URIs of the updates an SDK v1 client received, in order, and a way to wait for one. */
interface LegacyV1 {
  client: ClientV1;
  transport: StreamableHTTPClientTransportV1;
  updates: string[];
  nextUpdate(uri: string, from: number, timeoutMs?: number): Promise<void>;
}

async function connectV1(endpoint: string): Promise<LegacyV1> {
  const client = new ClientV1({ name: 'sdk-v1-legacy', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransportV1(new URL(endpoint));
  const updates: string[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
    for (const wake of [...waiters]) wake();
  });
  await client.connect(transport);
  return {
    client,
    transport,
    updates,
    nextUpdate: (uri, from, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): boolean => {
          if (updates.indexOf(uri, from) === -1) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no update for ${uri} within ${timeoutMs} ms (got ${JSON.stringify(updates)})`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      }),
  };
}

/** The SDK opens its GET stream after `initialized`, in the background: wait (bounded) until the server holds it. */
async function streamAttached(gateway: RunningGateway, sessionId: string | undefined): Promise<void> {
  expect(sessionId).toEqual(expect.any(String));
  const deadline = Date.now() + 10_000;
  while (!(await gateway.streamHeld(sessionId!))) {
    if (Date.now() > deadline) throw new Error('the legacy client never opened its GET stream');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const urisOf = (connection: SdkV2Connection, from: number) => connection.updates.slice(from).map((n) => n.params.uri);

describe('mixed eras: legacy subscribers and modern listeners of the same URI', () => {
  let gateway: RunningGateway;
  let legacyV1: LegacyV1;
  let legacyV2: SdkV2Connection;
  let modern: SdkV2Connection;
  let bystander: SdkV2Connection;
  const subscriptions: McpSubscription[] = [];
  let notifications: ResourceNotificationService;
  let noteId: string;
  let noteUri: string;

  beforeAll(async () => {
    // Strict wire profile: the SDK v2 client's subscribeResource() validates the empty result.
    gateway = await startGateway({ MCP_WIRE_PROFILE: 'strict' });
    notifications = gateway.app.get(ResourceNotificationService);
    modern = await connectSdkV2('http', { mode: PINNED, endpoint: gateway.endpoint, name: 'modern-listener' });
    bystander = await connectSdkV2('http', { mode: PINNED, endpoint: gateway.endpoint, name: 'bystander' });
    legacyV2 = await connectSdkV2('http', { mode: 'legacy', endpoint: gateway.endpoint, name: 'sdk-v2-legacy' });
    legacyV1 = await connectV1(gateway.endpoint);
    expect(modern.client.getProtocolEra()).toBe('modern');
    expect(legacyV2.client.getProtocolEra()).toBe('legacy');

    const created = toolJson(
      await modern.client.callTool({ name: 'notes.create', arguments: { title: 'shared', body: 'v1' } }),
    );
    noteId = created.id;
    noteUri = created.uri;
    const other = toolJson(
      await modern.client.callTool({ name: 'notes.create', arguments: { title: 'elsewhere', body: 'v1' } }),
    );

    await streamAttached(gateway, legacyV1.transport.sessionId);
    await streamAttached(gateway, legacyV2.http?.sessionId);
    await legacyV1.client.subscribeResource({ uri: noteUri });
    await legacyV1.client.subscribeResource({ uri: MARKER_URI });
    await legacyV2.client.subscribeResource({ uri: noteUri });
    await legacyV2.client.subscribeResource({ uri: MARKER_URI });
    const listening = await modern.client.listen({ resourceSubscriptions: [noteUri, MARKER_URI] });
    expect(listening.honoredFilter).toEqual({ resourceSubscriptions: [noteUri, MARKER_URI] });
    const elsewhere = await bystander.client.listen({ resourceSubscriptions: [other.uri, MARKER_URI] });
    expect(elsewhere.honoredFilter).toEqual({ resourceSubscriptions: [other.uri, MARKER_URI] });
    subscriptions.push(listening, elsewhere);
  }, 60_000);

  afterAll(async () => {
    for (const subscription of subscriptions) await subscription.close().catch(() => undefined);
    for (const connection of [modern, bystander, legacyV2]) await connection?.close();
    await legacyV1?.client.close().catch(() => undefined);
    await gateway?.close();
  });

  /** Sends the marker and waits until every client has it (after `from`). */
  async function markerEverywhere(from: { v1: number; v2: number; modern: number; bystander: number }) {
    await notifications.notifyResourceUpdated(MARKER_URI);
    await Promise.all([
      legacyV1.nextUpdate(MARKER_URI, from.v1),
      legacyV2.nextUpdate((n) => n.params.uri === MARKER_URI, from.v2),
      modern.nextUpdate((n) => n.params.uri === MARKER_URI, from.modern),
      bystander.nextUpdate((n) => n.params.uri === MARKER_URI, from.bystander),
    ]);
  }

  const positions = () => ({
    v1: legacyV1.updates.length,
    v2: legacyV2.updates.length,
    modern: modern.updates.length,
    bystander: bystander.updates.length,
  });

  it('one notifyResourceUpdated(uri) reaches each legacy session and the modern listener exactly once', async () => {
    const from = positions();
    const report = await notifications.notifyResourceUpdated(noteUri);
    expect(report).toEqual(expect.objectContaining({ sessions: 2, listeners: 1 }));
    await markerEverywhere(from);

    expect(legacyV1.updates.slice(from.v1)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(legacyV2, from.v2)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(modern, from.modern)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(bystander, from.bystander)).toEqual([MARKER_URI]);
    // Legacy notifications carry no subscription id; the listen's carry its id.
    expect(legacyV2.updates[from.v2].params._meta?.[SUBSCRIPTION_ID_META]).toBeUndefined();
    expect(modern.updates[from.modern].params._meta?.[SUBSCRIPTION_ID_META]).toEqual(expect.anything());
  });

  it('a notes.update call (from a legacy session) does the same', async () => {
    const from = positions();
    const updated = toolJson(
      await legacyV1.client.callTool({ name: 'notes.update', arguments: { id: noteId, body: 'v2' } }),
    );
    expect(updated).toMatchObject({ id: noteId, uri: noteUri });
    await markerEverywhere(from);

    expect(legacyV1.updates.slice(from.v1)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(legacyV2, from.v2)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(modern, from.modern)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(bystander, from.bystander)).toEqual([MARKER_URI]);
  });

  it('a notes.update call from a modern client, after the legacy sessions unsubscribed: only the listener', async () => {
    await legacyV1.client.unsubscribeResource({ uri: noteUri });
    await legacyV2.client.unsubscribeResource({ uri: noteUri });
    const from = positions();
    toolJson(await bystander.client.callTool({ name: 'notes.update', arguments: { id: noteId, body: 'v3' } }));
    await markerEverywhere(from);

    expect(legacyV1.updates.slice(from.v1)).toEqual([MARKER_URI]);
    expect(urisOf(legacyV2, from.v2)).toEqual([MARKER_URI]);
    expect(urisOf(modern, from.modern)).toEqual([noteUri, MARKER_URI]);
    expect(urisOf(bystander, from.bystander)).toEqual([MARKER_URI]);
    await expect(notifications.notifyResourceUpdated(noteUri)).resolves.toEqual(
      expect.objectContaining({ sessions: 0, listeners: 1 }),
    );
  });
});
