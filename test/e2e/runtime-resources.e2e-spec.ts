/**
 * Runtime resources (`McpResourceService`) under concurrency, scheme validation and coalesced
 * `list_changed` (docs/resources.md, docs/decisions/0007-resource-names-and-paginated-lists.md).
 *
 * The concurrency test interleaves thousands of register/unregister calls with paginated
 * `resources/list` walks (page size 100 in the gateway), reads and subscribes over real HTTP,
 * and checks the invariants of keyset pagination: no URI twice within one walk, every URI that
 * existed for the whole walk exactly once, no URI that was absent for the whole walk.
 */
import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { MCP_FANOUT } from '@app/mcp/backend/mcp-backend.tokens.js';
import { McpDefinitionError, McpResourceService, ResourceNotificationService } from '@app/mcp';
import type { McpFanout, McpListKind } from '@nest-mcp/server/backend';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSession, rawRequest } from '../support/raw-http.js';
import { isListChanged, isUpdated, rawSession, type RawSession, type SseClient } from '../support/sse-client.js';
import { until } from '../support/until.js';

const OPERATIONS = 2_000;
const STABLE = 150;
const CHURN_POOL = 300;

/** Deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number): string => String(n).padStart(4, '0');
const LIST_CHANGED: McpListKind = 'resources';

/**
 * Counts the fan-out broadcasts of `method`. `nextSent()` resolves once a broadcast that starts
 * after the call has been handed to every stream (its promise settled): one that started
 * earlier, inside an earlier window, does not count.
 */
function watchBroadcasts(fanout: McpFanout, kind: McpListKind): { nextSent(): Promise<void>; count(): number } {
  const broadcast = fanout.listChanged.bind(fanout);
  let started = 0;
  let sent = 0;
  const waiters = new Set<{ after: number; resolve: () => void }>();
  jest.spyOn(fanout, 'listChanged').mockImplementation(async (changed: McpListKind) => {
    if (changed !== kind) return broadcast(changed);
    const ordinal = ++started;
    const reached = await broadcast(changed);
    sent += 1;
    for (const waiter of [...waiters]) {
      if (ordinal > waiter.after) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
    return reached;
  });
  return {
    nextSent: () => new Promise<void>((resolve) => waiters.add({ after: started, resolve })),
    count: () => sent,
  };
}

const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('runtime resources', () => {
  let gateway: RunningGateway;
  let resources: McpResourceService;
  const sessions: RawSession[] = [];
  const streams = new Set<SseClient>();

  beforeEach(async () => {
    gateway = await startGateway();
    resources = gateway.app.get(McpResourceService);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const stream of streams) stream.close();
    streams.clear();
    await Promise.all(
      sessions.map((session) => rawRequest(gateway.endpoint, 'DELETE', session.headers).catch(() => undefined)),
    );
    sessions.length = 0;
    await gateway?.close();
  });

  const newSession = async (): Promise<RawSession> => {
    const session = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    sessions.push(session);
    return session;
  };

  /** One paginated walk of resources/list; throws on any error or a runaway cursor chain. */
  const walk = async (session: RawSession): Promise<{ uris: string[]; pages: number }> => {
    const uris: string[] = [];
    let cursor: string | undefined;
    for (let pages = 1; pages <= 200; pages++) {
      const response = await session.request('resources/list', cursor === undefined ? {} : { cursor });
      if (response.status !== 200 || response.json?.error || !Array.isArray(response.json?.result?.resources)) {
        throw new Error(`resources/list page ${pages} failed: HTTP ${response.status} ${response.text.slice(0, 300)}`);
      }
      const { resources: items, nextCursor } = response.json.result;
      expect(items.length).toBeLessThanOrEqual(100);
      uris.push(...items.map((item: { uri: string }) => item.uri));
      if (nextCursor === undefined) return { uris, pages };
      expect(typeof nextCursor).toBe('string');
      cursor = nextCursor;
    }
    throw new Error('resources/list did not end within 200 pages');
  };

  it('register/unregister in parallel with list walks, reads and subscribes keeps every invariant', async () => {
    const reader = (uri: string) => () => ({ uri, ok: true });

    const [walker1, walker2, walker3, readerSession, subscriber] = await Promise.all([
      newSession(),
      newSession(),
      newSession(),
      newSession(),
      newSession(),
    ]);
    const declared = new Set((await walk(walker1)).uris);
    const stable = Array.from({ length: STABLE }, (_, i) => `test://stable/${pad(i)}`);
    for (const uri of stable)
      resources.register(uri, reader(uri), { name: `Stable ${uri}`, mimeType: 'application/json' });

    // The truth, kept in step with the registry: registration changes are synchronous.
    const churn = Array.from({ length: CHURN_POOL }, (_, i) => `test://churn/${pad(i)}`);
    const present = new Map<string, boolean>(churn.map((uri) => [uri, false]));
    const lastChange = new Map<string, number>(churn.map((uri) => [uri, 0]));
    let seq = 0;
    let churnDone = false;
    const failures: string[] = [];

    const driver = async (): Promise<void> => {
      const random = prng(3);
      try {
        for (let op = 0; op < OPERATIONS; op++) {
          const uri = churn[Math.floor(random() * churn.length)];
          seq += 1;
          lastChange.set(uri, seq);
          if (present.get(uri)) {
            present.set(uri, false);
            const removed = resources.unregister(uri);
            if (!(await removed)) failures.push(`unregister(${uri}) returned false for a registered URI`);
          } else {
            present.set(uri, true);
            resources.register(uri, reader(uri), { name: `Churn ${uri}`, mimeType: 'application/json' });
          }
          if (op % 3 === 0) await yieldToIo();
        }
      } finally {
        churnDone = true;
      }
    };

    let walks = 0;
    let walksSpanningChanges = 0;
    const walker = async (session: RawSession): Promise<void> => {
      while (!churnDone && walks < 1_000) {
        const before = new Map(present);
        const seqAtStart = seq;
        const { uris } = await walk(session);
        walks += 1;
        if (seq !== seqAtStart) walksSpanningChanges += 1;
        const counts = new Map<string, number>();
        for (const uri of uris) counts.set(uri, (counts.get(uri) ?? 0) + 1);
        for (const [uri, count] of counts) if (count > 1) failures.push(`walk ${walks}: ${uri} listed ${count} times`);
        for (const uri of [...declared, ...stable]) {
          if (counts.get(uri) !== 1)
            failures.push(`walk ${walks}: ${uri} (present throughout) listed ${counts.get(uri) ?? 0} times`);
        }
        for (const uri of churn) {
          if ((lastChange.get(uri) ?? 0) > seqAtStart) continue; // changed during the walk: either is fine
          const listed = counts.has(uri);
          if (before.get(uri) && !listed)
            failures.push(`walk ${walks}: ${uri} existed for the whole walk but was missed`);
          if (!before.get(uri) && listed)
            failures.push(`walk ${walks}: ${uri} was absent for the whole walk but was listed`);
        }
        for (const uri of counts.keys()) {
          if (!declared.has(uri) && !uri.startsWith('test://stable/') && !uri.startsWith('test://churn/')) {
            failures.push(`walk ${walks}: unexpected URI ${uri}`);
          }
        }
      }
    };

    let reads = 0;
    const reading = async (): Promise<void> => {
      const random = prng(11);
      while (!churnDone && reads < 5_000) {
        const uri =
          random() < 0.2 ? stable[Math.floor(random() * stable.length)] : churn[Math.floor(random() * churn.length)];
        const response = await readerSession.request('resources/read', { uri });
        reads += 1;
        const { result, error } = response.json ?? {};
        if (response.status !== 200) failures.push(`read ${uri}: HTTP ${response.status}`);
        else if (result) {
          const text = result.contents?.[0]?.text;
          if (JSON.stringify(JSON.parse(text)) !== JSON.stringify({ uri, ok: true }))
            failures.push(`read ${uri}: wrong content ${text}`);
        } else if (error?.code !== -32002 || uri.startsWith('test://stable/')) {
          failures.push(`read ${uri}: unexpected error ${JSON.stringify(error)}`);
        }
      }
    };

    let subscribes = 0;
    const subscribing = async (): Promise<void> => {
      const random = prng(17);
      while (!churnDone && subscribes < 5_000) {
        const uri =
          random() < 0.2 ? stable[Math.floor(random() * stable.length)] : churn[Math.floor(random() * churn.length)];
        const response = await subscriber.request('resources/subscribe', { uri });
        subscribes += 1;
        const { result, error } = response.json ?? {};
        if (response.status !== 200) failures.push(`subscribe ${uri}: HTTP ${response.status}`);
        else if (result) {
          if (result.subscribed !== true || result.uri !== uri)
            failures.push(`subscribe ${uri}: wrong result ${JSON.stringify(result)}`);
        } else if (error?.code !== -32601 || uri.startsWith('test://stable/')) {
          failures.push(`subscribe ${uri}: unexpected error ${JSON.stringify(error)}`);
        }
      }
    };

    await Promise.all([driver(), walker(walker1), walker(walker2), walker(walker3), reading(), subscribing()]);

    expect(failures.slice(0, 20)).toEqual([]);
    expect(seq).toBe(OPERATIONS);
    expect(walks).toBeGreaterThanOrEqual(3);
    expect(walksSpanningChanges).toBeGreaterThanOrEqual(1); // the walks really raced the changes
    expect(reads).toBeGreaterThan(0);
    expect(subscribes).toBeGreaterThan(0);

    const expected = new Set([...declared, ...stable, ...churn.filter((uri) => present.get(uri))]);
    const final = await walk(walker1);
    expect(final.uris).toHaveLength(new Set(final.uris).size);
    expect(new Set(final.uris)).toEqual(expected);
    expect(final.pages).toBe(Math.ceil(expected.size / 100));
    for (const uri of churn) expect(resources.has(uri)).toBe(present.get(uri));
  }, 120_000);

  it.each(['no-scheme', '', '/absolute/path', 'notes/1', '://no-scheme', '1db://digit-first', 'db notes://space'])(
    'a URI without a scheme (%j) is rejected with McpDefinitionError and never listed',
    async (uri) => {
      expect(() => resources.register(uri, () => 'x', { name: 'bad' })).toThrow(McpDefinitionError);
      expect(() => resources.register(uri, () => 'x')).toThrow(/scheme/);
      expect(resources.has(uri)).toBe(false);
      const session = await newSession();
      expect((await walk(session)).uris).not.toContain(uri);
    },
  );

  it('a runtime resource cannot replace a declared one', () => {
    expect(() => resources.register('db://notes', () => [])).toThrow(McpDefinitionError);
  });

  it('a burst of 100 registrations in one debounce window sends exactly one list_changed to an open stream', async () => {
    const listChanged = watchBroadcasts(gateway.app.get<McpFanout>(MCP_FANOUT), LIST_CHANGED);
    const session = await newSession();
    expect((await session.subscribe('system://info')).result).toEqual({ subscribed: true, uri: 'system://info' });
    const stream = await session.openStream();
    streams.add(stream);
    expect(stream.status).toBe(200);

    // One synchronous loop: the window opens at the first change and its timer cannot fire
    // before the loop ends, so the whole burst falls in one window however slow the machine.
    for (let i = 0; i < 100; i++) {
      resources.register(`burst://item/${pad(i)}`, () => ({ i }), { name: `Burst ${i}` });
    }

    // Gate: a list_changed that started after the last registration has been handed to every
    // stream, so no window of the burst is still open.
    await listChanged.nextSent();
    // Barrier: an update sent after that arrives after it on the same stream, so everything the
    // burst caused is in the events before the barrier.
    await gateway.app.get(ResourceNotificationService).notifyResourceUpdated('system://info');
    const barrier = await stream.waitFor(isUpdated('system://info'));
    expect(stream.events.slice(0, barrier.index).filter(isListChanged)).toHaveLength(1);
    expect(listChanged.count()).toBe(1);
  });

  // Two instances need a shared backend: this runs in the e2e-redis project (MCP_E2E_REDIS_URL).
  (process.env.MCP_E2E_REDIS_URL ? it : it.skip)(
    'a read through another instance runs the handler where it was registered; asking the client there is a clear error',
    async () => {
      const prefix = `e2e-fwd-${randomBytes(5).toString('hex')}:`;
      const origin = await startGateway({ MCP_REDIS_KEY_PREFIX: prefix, MCP_INSTANCE_ID: 'fwd-origin' });
      const reader = await startGateway({ MCP_REDIS_KEY_PREFIX: prefix, MCP_INSTANCE_ID: 'fwd-reader' });
      try {
        const originResources = origin.app.get(McpResourceService);
        originResources.register('fwd://plain', (_resource, ctx) => ({ where: 'origin', method: ctx.method }), {
          mimeType: 'application/json',
        });
        originResources.register('fwd://asks', async (_resource, ctx) =>
          ctx.elicit({ message: 'Which note?', requestedSchema: { type: 'object', properties: {} } }),
        );
        const session = rawSession(reader.endpoint, await openSession(reader.endpoint));
        await until(
          async () => (await session.request('resources/read', { uri: 'fwd://asks' })).json?.error?.code !== -32002,
          'the reader adopted the resources',
        );

        const plain = await session.request('resources/read', { uri: 'fwd://plain' });
        expect(JSON.parse(plain.json.result.contents[0].text)).toEqual({ where: 'origin', method: 'resources/read' });

        const asks = await session.request('resources/read', { uri: 'fwd://asks' });
        expect(asks.json.error).toEqual({
          code: -32603,
          message: 'Client unreachable',
          data: {
            uri: 'fwd://asks',
            detail:
              "ctx.elicit is not available while reading 'fwd://asks': this runtime resource's handler runs on another instance (the one that registered it), which cannot reach the client",
          },
        });
      } finally {
        await reader.close();
        await origin.close();
      }
    },
  );
});
