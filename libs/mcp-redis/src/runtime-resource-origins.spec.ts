/**
 * Runtime resources across instances: the others drop them when the instance that registered
 * them shuts down, when its liveness lapses (a crash) and when it comes back under the same id;
 * a read forwarded to that instance runs for the caller the reading instance authenticated.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { McpClientUnreachableError, McpException, type McpPrincipal, type McpRequestContext } from '@nest-mcp/server';
import type { McpBackendParts, McpInstanceMessaging } from '@nest-mcp/server/backend';
import { deploymentOf, type BackendDeployment } from '@nest-mcp/server/testing';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { until } from '../../../test/support/until.js';
import type { ListChangedCoalescer } from '../../mcp/src/notifications/list-changed.coalescer.js';
import type { ResourceNotificationService } from '../../mcp/src/notifications/resource-notification.service.js';
import { McpResourceRegistry, type McpResourceEntry } from '../../mcp/src/registry/mcp-resource.registry.js';
import { RuntimeResourceSync } from '../../mcp/src/resources/runtime-resource-sync.js';
import { RedisMcpBackend } from './redis.backend.js';

/** The instance's liveness key lives three heartbeats: 300 ms here. */
const HEARTBEAT_MS = 100;

interface Instance {
  readonly parts: McpBackendParts;
  readonly registry: McpResourceRegistry;
  readonly sync: RuntimeResourceSync;
  readonly schedule: jest.Mock<(kind: string) => void>;
  readonly updated: jest.Mock<(uri: string) => Promise<unknown>>;
}

function syncOver(parts: McpBackendParts, messaging: McpInstanceMessaging = parts.messaging!): Instance {
  const registry = new McpResourceRegistry();
  const schedule = jest.fn<(kind: string) => void>();
  const updated = jest.fn<(uri: string) => Promise<unknown>>(async () => ({ sessions: 0, listeners: 0 }));
  const sync = new RuntimeResourceSync(
    registry,
    messaging,
    { schedule } as unknown as ListChangedCoalescer,
    { notifyResourceUpdated: updated } as unknown as ResourceNotificationService,
  );
  sync.onApplicationBootstrap();
  return { parts, registry, sync, schedule, updated };
}

function registerHere(instance: Instance, uri: string): void {
  const entry: McpResourceEntry = {
    uri,
    descriptor: { uri, name: uri },
    handler: async () => ({ contents: [{ uri, text: 'hello' }] }),
    source: 'McpResourceService.register',
    runtime: true,
  };
  instance.registry.register(entry);
  instance.sync.announce(entry);
}

describe('runtime resources of instances that are gone', () => {
  let redis: TestRedis;
  let keyPrefix: string;
  let deployment: BackendDeployment;
  let nextId = '';
  const syncs: RuntimeResourceSync[] = [];

  const start = async (instanceId: string): Promise<Instance> => {
    if (!running) throw new Error('The test already ended: no instance starts after it');
    nextId = instanceId;
    const instance = syncOver(await deployment.instance());
    syncs.push(instance.sync);
    return instance;
  };

  beforeAll(async () => {
    redis = await startRedis();
    keyPrefix = redis.prefix();
  }, 30_000);

  // A deployment per test, closed after it however it ended (its instances, their heartbeats
  // and connections); an instance a timed-out test asks for after that is refused.
  let running = false;
  beforeEach(() => {
    running = true;
    deployment = deploymentOf(
      () => new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId: nextId, heartbeatMs: HEARTBEAT_MS }),
    );
  });

  afterEach(async () => {
    running = false;
    // Stops the liveness timers of this test's instances.
    for (const sync of syncs.splice(0)) sync.beforeApplicationShutdown();
    await deployment.close();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it('drops what a crashed instance announced once its liveness lapsed, and not before', async () => {
    const a = await start('crash-a');
    const b = await start('crash-b');
    registerHere(a, 'mem://crash/1');
    registerHere(a, 'mem://crash/2');
    await until(() => b.registry.get('mem://crash/2') !== undefined, 'b adopted both');

    await b.sync.dropDeadOrigins();
    expect(b.registry.get('mem://crash/1')?.origin).toBe('crash-a');

    // A crash: connections and heartbeat gone, nothing said.
    await a.parts.close!();
    await until(
      async () => (await b.parts.messaging!.deadInstances!(['crash-a'])).includes('crash-a'),
      'the lease of crash-a ended',
    );
    await b.sync.dropDeadOrigins();

    expect(b.registry.get('mem://crash/1')).toBeUndefined();
    expect(b.registry.get('mem://crash/2')).toBeUndefined();
    expect(b.schedule).toHaveBeenCalledWith('resources');
    expect(b.updated.mock.calls.map(([uri]) => uri).sort()).toEqual(['mem://crash/1', 'mem://crash/2']);
  });

  it('drops what an instance announced when it shuts down, and keeps what others registered themselves', async () => {
    const a = await start('deploy-a');
    const b = await start('deploy-b');
    const c = await start('deploy-c');
    registerHere(a, 'mem://deploy/a');
    registerHere(c, 'mem://deploy/c');
    await until(
      () => b.registry.get('mem://deploy/a') !== undefined && b.registry.get('mem://deploy/c') !== undefined,
      'b adopted both',
    );

    a.sync.beforeApplicationShutdown();
    await until(() => b.registry.get('mem://deploy/a') === undefined, 'b dropped the resource of a');

    expect(b.registry.get('mem://deploy/c')?.origin).toBe('deploy-c');
    expect(c.registry.get('mem://deploy/c')?.origin).toBeUndefined();
    expect(b.updated).toHaveBeenCalledWith('mem://deploy/a');
  });

  it('drops what an earlier life of an instance announced when it starts again under the same id', async () => {
    const first = await start('phoenix');
    const b = await start('phoenix-b');
    registerHere(first, 'mem://phoenix/old');
    await until(() => b.registry.get('mem://phoenix/old') !== undefined, 'b adopted the old resource');

    await first.parts.close!();
    const again = await start('phoenix');
    await until(() => b.registry.get('mem://phoenix/old') === undefined, 'b dropped the old resource');

    registerHere(again, 'mem://phoenix/new');
    await until(() => b.registry.get('mem://phoenix/new') !== undefined, 'b adopted the new one');
    expect(b.registry.get('mem://phoenix/new')?.origin).toBe('phoenix');
  });

  it('decides nothing while the backend cannot tell which instances live', async () => {
    const handlers = new Map<string, (payload: unknown, from: string) => void>();
    let answer: () => Promise<string[]> = () => Promise.reject(new Error('Redis is unavailable'));
    const messaging: McpInstanceMessaging = {
      instanceId: 'dark-b',
      send: () => undefined,
      on: (topic, handler) => void handlers.set(topic, handler),
      deadInstances: () => answer(),
    };
    const b = syncOver({} as McpBackendParts, messaging);
    syncs.push(b.sync);
    handlers.get('resource-registered')!({ uri: 'mem://dark/1', descriptor: {}, life: 'x' }, 'dark-a');
    expect(b.registry.get('mem://dark/1')?.origin).toBe('dark-a');

    await b.sync.dropDeadOrigins();
    expect(b.registry.get('mem://dark/1')).toBeDefined();
    expect(b.schedule).not.toHaveBeenCalled();

    answer = async () => ['dark-a'];
    await b.sync.dropDeadOrigins();
    expect(b.registry.get('mem://dark/1')).toBeUndefined();
    expect(b.schedule).toHaveBeenCalledWith('resources');
  });

  describe('a read forwarded to the instance that registered the resource', () => {
    const alice: McpPrincipal = {
      issuer: 'https://as.example.com',
      subject: 'alice',
      clientId: 'notes-app',
      scopes: ['notes:read'],
      audience: ['https://mcp.example.com/mcp'],
      expiresAt: 4_102_444_800,
      claims: { sub: 'alice', scope: 'notes:read' },
      token: 'the-raw-access-token',
    };
    /** The context of a read on the instance the client talks to. */
    const readingContext = (auth?: McpPrincipal) =>
      ({
        requestId: 7,
        method: 'resources/read',
        sessionId: 'session-1',
        protocolVersion: '2025-11-25',
        era: 'legacy',
        transport: 'streamable-http',
        auth,
      }) as unknown as McpRequestContext;

    /** Registers `uri` on `origin` with `handler`, and waits until `reader` adopted it. */
    const registerOn = async (
      origin: Instance,
      reader: Instance,
      uri: string,
      handler: (ctx: McpRequestContext) => Promise<unknown>,
    ) => {
      const entry: McpResourceEntry = {
        uri,
        descriptor: { uri, name: uri },
        handler: async (_args, ctx) => ({ contents: [{ uri, text: JSON.stringify(await handler(ctx)) }] }),
        source: 'McpResourceService.register',
        runtime: true,
      };
      origin.registry.register(entry);
      origin.sync.announce(entry);
      await until(() => reader.registry.get(uri) !== undefined, `${uri} adopted`);
      return (ctx: McpRequestContext) => reader.registry.get(uri)!.handler({ uri }, ctx);
    };

    it('runs the handler for the principal the reading instance authenticated, with its scopes and without its token', async () => {
      const a = await start('reads-a');
      const b = await start('reads-b');
      const seen: McpRequestContext[] = [];
      const read = await registerOn(a, b, 'mem://reads/owned', async (ctx) => {
        seen.push(ctx);
        return { owner: ctx.auth?.subject ?? 'anonymous' };
      });

      const contents = (await read(readingContext(alice))) as { contents: { text: string }[] };

      expect(JSON.parse(contents.contents[0].text)).toEqual({ owner: 'alice' });
      const { token: _token, ...withoutToken } = alice;
      expect(seen[0].auth).toEqual(withoutToken);
      expect(seen[0]).toMatchObject({ requestId: 7, sessionId: 'session-1', method: 'resources/read', era: 'legacy' });

      await read(readingContext(undefined));
      expect(seen[1].auth).toBeUndefined();
    });

    it.each([
      [
        'ctx.elicit',
        (ctx: McpRequestContext) =>
          ctx.elicit({ message: 'Which note?', requestedSchema: { type: 'object', properties: {} } }),
      ],
      ['ctx.sample', (ctx: McpRequestContext) => ctx.sample({ messages: [], maxTokens: 1 })],
      ['ctx.listRoots', (ctx: McpRequestContext) => ctx.listRoots()],
      ['ctx.reportProgress', (ctx: McpRequestContext) => ctx.reportProgress(1, 2)],
    ])('%s throws a clear McpException there, which the read answers with', async (what, ask) => {
      const a = await start(`ask-a-${what}`);
      const b = await start(`ask-b-${what}`);
      let thrown: unknown;
      const read = await registerOn(a, b, `mem://reads/${what}`, async (ctx) => {
        try {
          return await ask(ctx);
        } catch (error) {
          thrown = error;
          throw error;
        }
      });

      const failure = await read(readingContext(alice)).catch((error: unknown) => error);

      expect(thrown).toBeInstanceOf(McpClientUnreachableError);
      expect(failure).toBeInstanceOf(McpException);
      expect((failure as McpException).toJsonRpcError()).toEqual({
        code: -32603,
        message: 'Client unreachable',
        data: {
          uri: `mem://reads/${what}`,
          detail: `${what} is not available while reading 'mem://reads/${what}': this runtime resource's handler runs on another instance (the one that registered it), which cannot reach the client`,
        },
      });
    });
  });
});
