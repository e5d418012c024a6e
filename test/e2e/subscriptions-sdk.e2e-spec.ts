/**
 * The official TypeScript SDK client and subscriptions, in both wire profiles (docs/decisions/0001-wire-profiles.md):
 * `strict` makes `subscribeResource()` / `unsubscribeResource()` work as-is; the default profile
 * answers the reference gateway's shape, which a raw `client.request` with a schema accepts.
 * Either way, `notifications/resources/updated` reaches the client's notification handler.
 */
import { ResourceNotificationService } from '@app/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { GATEWAY_CAPABILITIES, startGateway, type RunningGateway } from '../support/gateway-app.js';

const INFO = 'system://info';

interface SdkClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** URIs of the `notifications/resources/updated` received, in order. */
  updates: string[];
  /** Resolves when an update for `uri` at position >= `from` arrives; rejects on timeout. */
  waitForUpdate(uri: string, from?: number, timeoutMs?: number): Promise<number>;
}

async function connect(gateway: RunningGateway, name: string): Promise<SdkClient> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(gateway.endpoint));
  const updates: string[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
    for (const waiter of [...waiters]) waiter();
  });
  await client.connect(transport);
  return {
    client,
    transport,
    updates,
    waitForUpdate(uri, from = 0, timeoutMs = 5_000) {
      return new Promise<number>((resolve, reject) => {
        const check = (): boolean => {
          const index = updates.indexOf(uri, from);
          if (index === -1) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(index);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no notifications/resources/updated for ${uri} within ${timeoutMs} ms (got ${JSON.stringify(updates)})`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
  };
}

/**
 * The SDK opens its GET stream in the background after `initialized`; notifications sent
 * before the stream is attached are not replayed to a stream opened without Last-Event-ID.
 * So wait (bounded) until the server holds the stream.
 */
async function streamAttached(gateway: RunningGateway, sdk: SdkClient): Promise<void> {
  const sessionId = sdk.transport.sessionId;
  expect(sessionId).toBeDefined();
  const deadline = Date.now() + 5_000;
  while (!(await gateway.streamHeld(sessionId!))) {
    if (Date.now() > deadline) throw new Error('the SDK client never opened its GET stream');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const toolJson = (result: unknown): any => {
  const { content, isError } = result as { content: { type: string; text: string }[]; isError?: boolean };
  expect(isError).toBeFalsy();
  return JSON.parse(content[0].text);
};

async function createNote(writer: SdkClient, title: string): Promise<{ id: string; uri: string }> {
  return toolJson(await writer.client.callTool({ name: 'notes.create', arguments: { title, body: 'v1' } }));
}

async function updateNote(writer: SdkClient, id: string, body: string): Promise<void> {
  toolJson(await writer.client.callTool({ name: 'notes.update', arguments: { id, body } }));
}

describe('SDK client, strict wire profile', () => {
  let gateway: RunningGateway;
  const clients: SdkClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway({ MCP_WIRE_PROFILE: 'strict' });
  });

  afterEach(async () => {
    await Promise.all(clients.map((sdk) => sdk.client.close().catch(() => undefined)));
    clients.length = 0;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const connectTracked = async (name: string) => {
    const sdk = await connect(gateway, name);
    clients.push(sdk);
    return sdk;
  };

  it('subscribeResource() resolves and the handler receives the update made by another client', async () => {
    const reader = await connectTracked('reader');
    const writer = await connectTracked('writer');
    // The strict wire profile changes result shapes, not what is declared.
    expect(reader.client.getServerCapabilities()).toEqual(GATEWAY_CAPABILITIES);
    const { id, uri } = await createNote(writer, 'SDK strict');

    await expect(reader.client.subscribeResource({ uri })).resolves.toEqual({});
    await streamAttached(gateway, reader);
    await updateNote(writer, id, 'v2');
    await reader.waitForUpdate(uri);
    expect(writer.updates).toEqual([]);
  });

  it('unsubscribeResource() resolves, and later updates are not delivered', async () => {
    const reader = await connectTracked('reader');
    const writer = await connectTracked('writer');
    const { id, uri } = await createNote(writer, 'SDK unsubscribe');
    await reader.client.subscribeResource({ uri });
    await reader.client.subscribeResource({ uri: INFO });
    await streamAttached(gateway, reader);

    await expect(reader.client.unsubscribeResource({ uri })).resolves.toEqual({});
    await updateNote(writer, id, 'v2');
    // Barrier: an update the reader IS subscribed to; the note's update would have come first.
    const from = reader.updates.length;
    expect(await gateway.app.get(ResourceNotificationService).notifyResourceUpdated(INFO)).toEqual({
      sessions: 1,
      listeners: 0,
    });
    await reader.waitForUpdate(INFO, from);
    expect(reader.updates).not.toContain(uri);
  });

  it('subscribeResource() of an unknown URI rejects with -32002', async () => {
    const reader = await connectTracked('reader');
    const error = await reader.client.subscribeResource({ uri: 'db://notes/*' }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
  });
});

describe('SDK client, default wire profile', () => {
  let gateway: RunningGateway;
  const clients: SdkClient[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
  });

  afterEach(async () => {
    await Promise.all(clients.map((sdk) => sdk.client.close().catch(() => undefined)));
    clients.length = 0;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('client.request with a schema gets the spec shape, and the notification arrives through the SDK', async () => {
    const reader = await connect(gateway, 'reader');
    clients.push(reader);
    const writer = await connect(gateway, 'writer');
    clients.push(writer);
    const { id, uri } = await createNote(writer, 'SDK default');

    const subscribed = await reader.client.request(
      { method: 'resources/subscribe', params: { uri } },
      z.object({ subscribed: z.literal(true), uri: z.string() }),
    );
    expect(subscribed).toEqual({ subscribed: true, uri });

    await streamAttached(gateway, reader);
    await updateNote(writer, id, 'v2');
    await reader.waitForUpdate(uri);

    const unsubscribed = await reader.client.request(
      { method: 'resources/unsubscribe', params: { uri } },
      z.object({ unsubscribed: z.literal(true), uri: z.string() }),
    );
    expect(unsubscribed).toEqual({ unsubscribed: true, uri });
  });

  it('an unknown URI is -32601 Resource not found in this profile', async () => {
    const reader = await connect(gateway, 'reader');
    clients.push(reader);
    const error = await reader.client
      .request({ method: 'resources/subscribe', params: { uri: 'db://Notes' } }, z.object({}).passthrough())
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32601);
    expect((error as McpError).data).toEqual(expect.objectContaining({ uri: 'db://Notes' }));
  });
});
