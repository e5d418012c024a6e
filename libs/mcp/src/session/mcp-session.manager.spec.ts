import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { resolveMcpOptions } from '../mcp-options.resolver.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { InMemoryMcpBackend } from '../backend/in-memory/in-memory.backend.js';
import type { InMemorySessionStore } from '../backend/in-memory/in-memory-session.store.js';
import type { McpLiveStreams } from '../backend/mcp-live-streams.js';
import type {
  McpConnection,
  McpSessionEndListener,
  McpSessionRecord,
  McpSessionStore,
} from '../backend/mcp-session.store.js';
import { McpSessionManager } from './mcp-session.manager.js';

const IDLE_TIMEOUT_MS = 10_000;
const CLEANUP_INTERVAL_MS = 1_000;
const START = new Date('2025-11-25T12:00:00Z').getTime();

interface Harness {
  manager: McpSessionManager;
  store: InMemorySessionStore & { get(id: string): Promise<McpSessionRecord | undefined> };
  liveStreams: McpLiveStreams;
  ended: jest.Mock<McpSessionEndListener>;
  /** Another manager with the same options and live streams, on `store` (a wrapper around the harness's). */
  managerOn(store: McpSessionStore): McpSessionManager;
}

function createHarness(options: Partial<McpModuleOptions> = {}): Harness {
  const resolved = resolveMcpOptions({
    serverInfo: { name: 't', version: '1' },
    ...options,
    sessions: {
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      cleanupIntervalMs: CLEANUP_INTERVAL_MS,
      ...(typeof options.sessions === 'boolean' ? { enabled: options.sessions } : options.sessions),
    },
  });
  const parts = new InMemoryMcpBackend().connect({ options: resolved });
  const sessions = parts.sessions as InMemorySessionStore;
  // A read that leaves the idle clock alone, for assertions.
  const store = Object.assign(sessions, { get: async (id: string) => sessions.peek(id) });
  const manager = new McpSessionManager(store, parts.liveStreams, resolved, new McpTelemetry());
  const ended = jest.fn<McpSessionEndListener>();
  manager.onSessionEnd(ended);
  const managerOn = (other: McpSessionStore) =>
    new McpSessionManager(other, parts.liveStreams, resolved, new McpTelemetry());
  return { manager, store, liveStreams: parts.liveStreams, ended, managerOn };
}

/** `store`, except that its `access` answers in a promise (as a shared store's does). */
const answeringLater = (store: McpSessionStore): McpSessionStore =>
  new Proxy(store, {
    get: (target, property) =>
      property === 'access'
        ? async (...args: Parameters<McpSessionStore['access']>) => target.access(...args)
        : Reflect.get(target, property),
  });

/** `store`, except that its `access` ignores the principal asked for (it answers for the record's own). */
const careless = (store: InMemorySessionStore, answer: 'at once' | 'in a promise'): McpSessionStore => {
  const access = (id: string, now: number, idle: number) => store.access(id, now, idle, store.peek(id)?.principal);
  return new Proxy(store, {
    get: (target, property) =>
      property === 'access'
        ? answer === 'at once'
          ? access
          : async (id: string, now: number, idle: number) => access(id, now, idle)
        : Reflect.get(target, property),
  });
};

const alice = { issuer: 'https://as', subject: 'alice', scopes: [], audience: [], claims: {} };

const newSession = (manager: McpSessionManager) =>
  manager.create({ protocolVersion: '2025-11-25', transport: 'streamable-http' });

const fakeConnection = (): McpConnection & { close: jest.Mock<() => void> } => ({
  send: jest.fn<(json: string) => boolean>().mockReturnValue(true),
  close: jest.fn<() => void>(),
});

describe('McpSessionManager', () => {
  let harness: Harness;

  beforeEach(() => {
    jest.useFakeTimers({ now: START });
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    harness = createHarness();
  });

  afterEach(async () => {
    harness.manager.onApplicationShutdown();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  describe('session ids', () => {
    it('issues 10,000 distinct ids of at least 32 visible ASCII characters', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 10_000; i++) ids.add((await newSession(harness.manager)).id);

      expect(ids.size).toBe(10_000);
      const malformed = [...ids].filter((id) => !/^[\x21-\x7E]{16,256}$/.test(id) || id.length < 32);
      expect(malformed).toEqual([]);
    });

    it('stamps a new session as not initialized, created and active now', async () => {
      const session = await newSession(harness.manager);

      expect(session).toMatchObject({ initialized: false, createdAt: START, lastActivityAt: START });
      expect(await harness.store.get(session.id)).toMatchObject({ id: session.id, protocolVersion: '2025-11-25' });
    });
  });

  describe('resolve', () => {
    it.each([
      ['the empty string', ''],
      ['300 characters', 'a'.repeat(300)],
      ['257 characters', 'a'.repeat(257)],
      ['a space', 'abc def'],
      ['a newline', 'abc\ndef'],
      ['a trailing newline', 'abcdef\n'],
      ['a tab', 'abc\tdef'],
      ['a non-ASCII character', 'sessión'],
      ['a DEL character', 'abc\x7F'],
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['an array', ['abc']],
      ['an object', { id: 'abc' }],
    ])('answers undefined for an id with %s, without touching the store', async (_label, id) => {
      const access = jest.spyOn(harness.store, 'access');

      expect(await harness.manager.resolve(id)).toBeUndefined();
      expect(access).not.toHaveBeenCalled();
    });

    it('looks up a well-formed id of 256 characters (and answers undefined when unknown)', async () => {
      const access = jest.spyOn(harness.store, 'access');

      expect(await harness.manager.resolve('a'.repeat(256))).toBeUndefined();
      expect(access).toHaveBeenCalledWith('a'.repeat(256), expect.any(Number), IDLE_TIMEOUT_MS, undefined);
    });

    it('answers at once when the store does (the in-memory one), and in a promise when the store answers with one', async () => {
      const session = await newSession(harness.manager);
      const atOnce = harness.manager.resolve(session.id);
      expect(atOnce).not.toBeInstanceOf(Promise);
      expect(atOnce).toEqual(expect.objectContaining({ id: session.id }));

      const access = jest.spyOn(harness.store, 'access');
      const lookup = harness.managerOn(answeringLater(harness.store)).resolve(session.id);
      expect(lookup).toBeInstanceOf(Promise);
      expect((await lookup)?.id).toBe(session.id);
      expect(access).toHaveBeenCalledTimes(1);
    });

    it.each(['at once', 'in a promise'] as const)(
      "checks the principal itself on a store's answer %s: a store that ignores it hands no session over",
      async (answer) => {
        const session = await harness.manager.create({
          protocolVersion: '2025-11-25',
          transport: 'streamable-http',
          principal: { issuer: 'https://as', subject: 'alice' },
        });
        const manager = harness.managerOn(careless(harness.store, answer));
        // The store hands alice's record to mallory, and to an anonymous caller: the manager does not.
        const foreign = manager.resolve(session.id, { ...alice, subject: 'mallory' });
        expect(foreign instanceof Promise).toBe(answer === 'in a promise');
        expect(await foreign).toBeUndefined();
        expect(await manager.resolve(session.id)).toBeUndefined();
        expect((await manager.resolve(session.id, alice))?.id).toBe(session.id);
      },
    );

    it("waits on a store's promise of another make (a thenable that is not a native Promise)", async () => {
      const session = await harness.manager.create({
        protocolVersion: '2025-11-25',
        transport: 'streamable-http',
        principal: { issuer: 'https://as', subject: 'alice' },
      });
      const store = harness.store;
      const thenable: McpSessionStore = new Proxy(store, {
        get: (target, property) =>
          property !== 'access'
            ? Reflect.get(target, property)
            : (...args: Parameters<McpSessionStore['access']>) => {
                const answer = Promise.resolve(store.access(...args));
                return {
                  then: (resolve: (value: unknown) => unknown, reject: (error: unknown) => unknown) =>
                    answer.then(resolve, reject),
                };
              },
      });
      const manager = harness.managerOn(thenable);

      const owner = manager.resolve(session.id, alice);
      expect(owner).toBeInstanceOf(Promise);
      expect((await owner)?.id).toBe(session.id);
      expect(await manager.resolve(session.id, { ...alice, subject: 'mallory' })).toBeUndefined();
    });

    it('fails the lookup in a promise when the store fails at once, as when its promise rejects', async () => {
      const session = await newSession(harness.manager);
      const failure = new Error('store unreachable');
      const failing = (answer: 'at once' | 'in a promise'): McpSessionStore =>
        new Proxy(harness.store, {
          get: (target, property) =>
            property !== 'access'
              ? Reflect.get(target, property)
              : answer === 'at once'
                ? () => {
                    throw failure;
                  }
                : async () => {
                    throw failure;
                  },
        });

      for (const answer of ['at once', 'in a promise'] as const) {
        const lookup = harness.managerOn(failing(answer)).resolve(session.id);
        expect(lookup).toBeInstanceOf(Promise);
        await expect(lookup).rejects.toBe(failure);
      }
    });

    it('never adopts an unknown id', async () => {
      expect(await harness.manager.resolve('client-chosen-session-id-0000000001')).toBeUndefined();
      expect(await harness.store.count()).toBe(0);
    });

    it('finds a live session and marks activity', async () => {
      const session = await newSession(harness.manager);
      jest.setSystemTime(START + 4_000);

      const resolved = await harness.manager.resolve(session.id);

      expect(resolved?.id).toBe(session.id);
      expect(resolved?.lastActivityAt).toBe(START + 4_000);
      expect((await harness.store.get(session.id))?.lastActivityAt).toBe(START + 4_000);
    });

    it("refuses another principal's lookup before it touches the session: its idle clock stays where it was", async () => {
      const session = await harness.manager.create({
        protocolVersion: '2025-11-25',
        transport: 'streamable-http',
        principal: { issuer: 'https://as', subject: 'alice' },
      });
      jest.setSystemTime(START + 0.9 * IDLE_TIMEOUT_MS);

      expect(await harness.manager.resolve(session.id, { ...alice, subject: 'mallory' })).toBeUndefined();
      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect((await harness.store.get(session.id))?.lastActivityAt).toBe(START);

      // So it expires on its own schedule, whoever kept asking for it.
      jest.setSystemTime(START + IDLE_TIMEOUT_MS + 1);
      expect(await harness.manager.resolve(session.id, alice)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
    });
  });

  describe.each(['at once', 'in a promise'] as const)('a store answering %s', (answer) => {
    /** The manager on the harness's store as it is (at once), or on it answering in a promise. */
    const managerOf = () => (answer === 'at once' ? harness.manager : harness.managerOn(answeringLater(harness.store)));

    it('finds a live session and restarts its idle clock', async () => {
      const session = await newSession(harness.manager);
      jest.setSystemTime(START + 4_000);

      const found = managerOf().resolve(session.id);
      expect(found instanceof Promise).toBe(answer === 'in a promise');
      expect((await found)?.lastActivityAt).toBe(START + 4_000);
      expect((await harness.store.get(session.id))?.lastActivityAt).toBe(START + 4_000);
    });

    it("answers another principal's lookup as an unknown session, and leaves the session as it was", async () => {
      const session = await harness.manager.create({
        protocolVersion: '2025-11-25',
        transport: 'streamable-http',
        principal: { issuer: 'https://as', subject: 'alice' },
      });
      const manager = managerOf();
      jest.setSystemTime(START + 0.9 * IDLE_TIMEOUT_MS);

      expect(await manager.resolve(session.id, { ...alice, subject: 'mallory' })).toBeUndefined();
      expect(await manager.resolve(session.id)).toBeUndefined();
      expect((await harness.store.get(session.id))?.lastActivityAt).toBe(START);
      expect((await manager.resolve(session.id, alice))?.id).toBe(session.id);
    });

    it('ends a session idle for longer than the timeout, and keeps one with a request in flight', async () => {
      const [idle, busy] = [await newSession(harness.manager), await newSession(harness.manager)];
      const manager = managerOf();
      const done = manager.requestStarted(busy.id);
      jest.setSystemTime(START + IDLE_TIMEOUT_MS + 1);

      expect(await manager.resolve(idle.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledWith(idle.id, 'expired');
      expect(await harness.store.get(idle.id)).toBeUndefined();
      expect((await manager.resolve(busy.id))?.id).toBe(busy.id);
      done();
    });
  });

  describe('idle expiry', () => {
    it('keeps a session idle for exactly the timeout, and ends one idle a millisecond longer', async () => {
      const session = await newSession(harness.manager);

      jest.setSystemTime(START + IDLE_TIMEOUT_MS);
      expect(await harness.manager.resolve(session.id)).toBeDefined();

      jest.setSystemTime(START + 2 * IDLE_TIMEOUT_MS + 1);
      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledTimes(1);
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
      expect(await harness.store.get(session.id)).toBeUndefined();
    });

    it('expires an idle session on resolve without waiting for the sweep', async () => {
      const session = await newSession(harness.manager);
      jest.setSystemTime(START + IDLE_TIMEOUT_MS + 1);

      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledTimes(1);
    });

    it('extends the life of a session on every resolve', async () => {
      const session = await newSession(harness.manager);

      for (let step = 1; step <= 5; step++) {
        jest.setSystemTime(START + step * 0.8 * IDLE_TIMEOUT_MS);
        expect(await harness.manager.resolve(session.id)).toBeDefined();
      }
      expect(harness.ended).not.toHaveBeenCalled();

      jest.setSystemTime(START + 4 * IDLE_TIMEOUT_MS + IDLE_TIMEOUT_MS + 1);
      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
    });
  });

  describe('the periodic sweep', () => {
    it('ends idle sessions on its own, leaves active ones, and tells the listeners', async () => {
      harness.manager.onModuleInit();
      const idle = await newSession(harness.manager);
      const active = await newSession(harness.manager);
      await jest.advanceTimersByTimeAsync(6_000);
      await harness.manager.resolve(active.id);

      await jest.advanceTimersByTimeAsync(IDLE_TIMEOUT_MS - 6_000);
      expect(await harness.store.get(idle.id)).toBeDefined();

      await jest.advanceTimersByTimeAsync(CLEANUP_INTERVAL_MS);
      expect(await harness.store.get(idle.id)).toBeUndefined();
      expect(await harness.store.get(active.id)).toBeDefined();
      expect(harness.ended).toHaveBeenCalledTimes(1);
      expect(harness.ended).toHaveBeenCalledWith(idle.id, 'expired');

      await jest.advanceTimersByTimeAsync(6_000 + CLEANUP_INTERVAL_MS);
      expect(await harness.store.get(active.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenLastCalledWith(active.id, 'expired');
      expect(harness.ended).toHaveBeenCalledTimes(2);
    });

    it('counts the sessions it ended', async () => {
      await newSession(harness.manager);
      await newSession(harness.manager);
      jest.setSystemTime(START + IDLE_TIMEOUT_MS + 1);
      await newSession(harness.manager);

      expect(await harness.manager.sweep()).toBe(2);
      expect(await harness.manager.count()).toBe(1);
    });

    it('keeps a session with an attached connection alive through sweeps and idle checks', async () => {
      harness.manager.onModuleInit();
      const session = await newSession(harness.manager);
      const connection = fakeConnection();
      await harness.liveStreams.attach(session.id, connection);

      await jest.advanceTimersByTimeAsync(5 * IDLE_TIMEOUT_MS);

      expect(harness.ended).not.toHaveBeenCalled();
      expect(connection.close).not.toHaveBeenCalled();
      expect(await harness.manager.resolve(session.id)).toBeDefined();

      harness.liveStreams.detach(session.id, connection);
      await jest.advanceTimersByTimeAsync(IDLE_TIMEOUT_MS + 2 * CLEANUP_INTERVAL_MS);

      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
      expect(await harness.store.get(session.id)).toBeUndefined();
    });

    it('keeps a session with a request in flight alive through sweeps and idle checks; it idles again after', async () => {
      harness.manager.onModuleInit();
      const session = await newSession(harness.manager);
      const [first, second] = [harness.manager.requestStarted(session.id), harness.manager.requestStarted(session.id)];

      await jest.advanceTimersByTimeAsync(5 * IDLE_TIMEOUT_MS);
      expect(harness.ended).not.toHaveBeenCalled();
      first();
      first();
      await jest.advanceTimersByTimeAsync(2 * IDLE_TIMEOUT_MS);
      expect(harness.ended).not.toHaveBeenCalled();
      expect(await harness.manager.resolve(session.id)).toBeDefined();

      second();
      // The end of a long request is activity: a full idle period from there.
      await jest.advanceTimersByTimeAsync(IDLE_TIMEOUT_MS - 2 * CLEANUP_INTERVAL_MS);
      expect(harness.ended).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(4 * CLEANUP_INTERVAL_MS);
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
    });

    it('a request whose HTTP client left no longer keeps its session alive, even if its handler runs on', async () => {
      harness.manager.onModuleInit();
      const session = await newSession(harness.manager);
      const socket = new EventEmitter();
      const done = harness.manager.requestStarted(session.id, { socket });
      await jest.advanceTimersByTimeAsync(2 * IDLE_TIMEOUT_MS);
      expect(harness.ended).not.toHaveBeenCalled();
      socket.emit('close');
      await jest.advanceTimersByTimeAsync(IDLE_TIMEOUT_MS + 2 * CLEANUP_INTERVAL_MS);
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
      done();
      expect(socket.listenerCount('close')).toBe(0);
    });

    it('a lookup never expires a session with a request in flight, even when its record looks idle', async () => {
      const session = await newSession(harness.manager);
      const done = harness.manager.requestStarted(session.id);
      jest.setSystemTime(START + 3 * IDLE_TIMEOUT_MS);
      expect(await harness.manager.resolve(session.id)).toBeDefined();
      done();
      jest.setSystemTime(START + 5 * IDLE_TIMEOUT_MS);
      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'expired');
    });

    it('keeps a connected session alive on resolve even when its record looks idle', async () => {
      const session = await newSession(harness.manager);
      await harness.liveStreams.attach(session.id, fakeConnection());
      jest.setSystemTime(START + 3 * IDLE_TIMEOUT_MS);

      expect(await harness.manager.resolve(session.id)).toBeDefined();
      expect(harness.ended).not.toHaveBeenCalled();
    });

    it('starts no timer when session management is off', async () => {
      const stateless = createHarness({ sessions: false });

      stateless.manager.onModuleInit();

      expect(jest.getTimerCount()).toBe(0);
    });
  });

  describe('ending sessions', () => {
    it('end(id, "deleted") removes the session, closes its connection and tells the listeners', async () => {
      const session = await newSession(harness.manager);
      const connection = fakeConnection();
      await harness.liveStreams.attach(session.id, connection);

      expect(await harness.manager.end(session.id, 'deleted')).toBe(true);

      expect(connection.close).toHaveBeenCalledTimes(1);
      expect(harness.ended).toHaveBeenCalledWith(session.id, 'deleted');
      expect(harness.liveStreams.holds(session.id)).toBe(false);
      expect(await harness.manager.resolve(session.id)).toBeUndefined();
      expect(await harness.manager.end(session.id, 'deleted')).toBe(false);
    });

    it('keeps calling listeners after one of them fails', async () => {
      const session = await newSession(harness.manager);
      const after = jest.fn<McpSessionEndListener>();
      harness.manager.onSessionEnd(async () => {
        throw new Error('listener broke');
      });
      harness.manager.onSessionEnd(after);

      await expect(harness.manager.end(session.id, 'deleted')).resolves.toBe(true);
      expect(after).toHaveBeenCalledWith(session.id, 'deleted');
    });
  });

  describe('connections', () => {
    it('closes the previous connection when a new one is attached', async () => {
      const session = await newSession(harness.manager);
      const first = fakeConnection();
      const second = fakeConnection();

      await harness.liveStreams.attach(session.id, first);
      await harness.liveStreams.attach(session.id, second);

      expect(first.close).toHaveBeenCalledTimes(1);
      expect(second.close).not.toHaveBeenCalled();
      expect(harness.liveStreams.send(session.id, '{"n":1}')).toBe(true);
      expect(second.send).toHaveBeenCalledWith('{"n":1}');
      expect(first.send).not.toHaveBeenCalled();
    });

    it('does not close a connection attached twice', async () => {
      const session = await newSession(harness.manager);
      const connection = fakeConnection();

      await harness.liveStreams.attach(session.id, connection);
      await harness.liveStreams.attach(session.id, connection);

      expect(connection.close).not.toHaveBeenCalled();
    });

    it('ignores the detach of a connection that was already replaced', async () => {
      const session = await newSession(harness.manager);
      const old = fakeConnection();
      const current = fakeConnection();
      await harness.liveStreams.attach(session.id, old);
      await harness.liveStreams.attach(session.id, current);

      harness.liveStreams.detach(session.id, old);

      expect(harness.liveStreams.send(session.id, '{"n":1}')).toBe(true);
      expect(current.send).toHaveBeenCalledWith('{"n":1}');
    });
  });

  describe('shutdown', () => {
    it("clears the sweep timer at shutdown, ending no session (its streams close along the transports' shutdown)", async () => {
      harness.manager.onModuleInit();
      expect(jest.getTimerCount()).toBe(1);
      const sessions = [await newSession(harness.manager), await newSession(harness.manager)];

      harness.manager.onApplicationShutdown();

      expect(jest.getTimerCount()).toBe(0);
      // A deploy must not delete sessions: their clients resume (elsewhere) with Last-Event-ID.
      expect(harness.ended).not.toHaveBeenCalled();
      for (const session of sessions) expect(harness.store.isAlive(session.id)).toBe(true);
    });

    it('runs no sweep after shutdown', async () => {
      harness.manager.onModuleInit();
      await newSession(harness.manager);
      harness.manager.onApplicationShutdown();

      await jest.advanceTimersByTimeAsync(3 * IDLE_TIMEOUT_MS);

      expect(harness.ended).not.toHaveBeenCalled();
    });
  });
});

describe('McpSessionManager.end, twice', () => {
  it('tells the end listeners once, however often the session is ended', async () => {
    const { manager } = createHarness();
    const listener = jest.fn<McpSessionEndListener>();
    manager.onSessionEnd(listener);
    const session = await newSession(manager);
    expect(await manager.end(session.id, 'expired')).toBe(true);
    expect(await manager.end(session.id, 'expired')).toBe(false);
    expect(await manager.end('never-existed', 'deleted')).toBe(false);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
