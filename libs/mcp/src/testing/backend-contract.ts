/**
 * The contract every backend keeps, as one Jest suite that runs against each of them: the
 * in-memory default, the Redis backend, and the faulty wrapper around them. A backend author
 * calls `describeBackendContract(name, start)` in a spec file.
 *
 * It is organised by seam, so that each piece's promises read together: sessions
 * (`McpSessionStore`, the ends it announces included), subscriptions (`McpSubscriptionStore`),
 * fan-out (`McpFanout`), live streams (`McpLiveStreams`), POST streams (`McpPostStreams`) and
 * request-state nonces (`McpRequestStateNonces`); then the same seams across several instances,
 * for a shared backend. Seams that deliver are observed through a live stream, as clients see
 * them.
 *
 * Written with Jest's globals (`describe`, `it`, `expect`), so this file imports no test library.
 * Waits are on messages and closes, bounded in time; "nothing arrives" is proved with a barrier
 * (a later message on the same stream: delivery on one stream is ordered).
 */
import { randomBytes } from 'node:crypto';
import type { McpBackendParts } from '../backend/mcp-backend.interface.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import type { McpListener, McpListKind } from '../backend/mcp-fanout.js';
import type { McpRequestStateNonces } from '../backend/mcp-request-state-nonces.js';
import type { McpSessionEndReason, McpSessionRecord, McpSessionStore } from '../backend/mcp-session.store.js';
import { resolveMcpOptions } from '../mcp-options.resolver.js';
import { principalBinding, type McpPrincipal } from '../model/mcp-principal.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { FakeConnection, listChanged, updated } from './fake-connection.js';
import { describeSkillStoreContract } from './skill-store-contract.js';
import { describeTaskStoreContract } from './task-store-contract.js';
import type { BackendDeployment, BackendUnderTest } from './backend-deployment.js';
import { eventually } from './eventually.js';

export { deploymentOf, type BackendDeployment, type BackendUnderTest } from './backend-deployment.js';

const newId = (): string => randomBytes(16).toString('base64url');

/** A session record as `initialize` makes it, with fields a plain JSON round trip could lose. */
export function sessionRecord(overrides: Partial<McpSessionRecord> = {}): McpSessionRecord {
  const now = Date.now();
  return {
    id: newId(),
    protocolVersion: '2025-11-25',
    initialized: false,
    transport: 'streamable-http',
    clientInfo: { name: 'contract', version: '1.0.0', icons: [] },
    clientCapabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
    createdAt: now,
    lastActivityAt: now,
    ...overrides,
  };
}

/** Records every session end the session store of an instance announces. */
function endsOf(parts: McpBackendParts): { ends: [string, McpSessionEndReason][]; waitFor(id: string): Promise<void> } {
  const ends: [string, McpSessionEndReason][] = [];
  const waiters = new Set<() => void>();
  parts.sessions.onEnded((id, reason) => {
    ends.push([id, reason]);
    for (const waiter of [...waiters]) waiter();
  });
  return {
    ends,
    waitFor(id) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!ends.some(([ended]) => ended === id)) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no end of ${id} announced within 5000 ms (got ${JSON.stringify(ends)})`));
        }, 5_000);
        if (!check()) waiters.add(check);
      });
    },
  };
}

/** `store`, except that `access` always answers in a promise, whatever shape the store's own answer has. */
function answeringInPromise(store: McpSessionStore): McpSessionStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'access') {
        return async (...args: Parameters<McpSessionStore['access']>) => target.access(...args);
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A modern listener that records what it is told. */
function listener(resources: string[], lists: McpListKind[] = []): McpListener & { heard: FakeConnection } {
  const heard = new FakeConnection();
  return {
    resources: new Set(resources),
    lists: new Set(lists),
    heard,
    notify(method, params) {
      heard.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }));
    },
  };
}

const seqOf = (eventId: string | undefined): number => Number(eventId?.split(':').at(-1));

/** A progress notification, serialized, as a POST answer carries it. */
const progress = (n: number): string =>
  `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":${n}}}`;

/** A POST answer of two events, resumed after its first on a second connection (which got the second). */
async function resumedAnswer(parts: McpBackendParts, sessionId: string) {
  const answer = new FakeConnection();
  const post = parts.postStreams.open(sessionId, answer);
  post.send(progress(1));
  post.send(progress(2));
  await answer.waitForCount(2);
  const resumed = new FakeConnection();
  expect(await parts.postStreams.resume(sessionId, answer.sent[0].eventId!, resumed)).toBe('resumed');
  await resumed.waitForCount(1);
  return { post, resumed };
}

/** The replay guard of an instance: every backend the contract checks has one. */
function noncesOf(parts: McpBackendParts): McpRequestStateNonces {
  expect(parts.requestStateNonces).toBeDefined();
  return parts.requestStateNonces!;
}

/**
 * Declares the contract suite for one backend.
 * @param name shown in the test names
 * @param subject how to deploy it
 */
export function describeBackendContract(name: string, subject: BackendUnderTest): void {
  describe(`${name}: the backend contract`, () => {
    let deployments: BackendDeployment[] = [];
    // A test that timed out runs on: what it would deploy after its afterEach is refused, or
    // nothing would close it.
    let running = false;
    const deploy = async (): Promise<BackendDeployment> => {
      if (!running) throw new Error('The test already ended: nothing is deployed after its afterEach');
      const deployment = await subject.deploy();
      deployments.push(deployment);
      return deployment;
    };

    beforeEach(() => {
      running = true;
    });

    afterEach(async () => {
      running = false;
      const closing = deployments;
      deployments = [];
      await Promise.all(closing.map((deployment) => deployment.close()));
    });

    /** One instance with a live session. */
    const single = async (options?: Partial<McpModuleOptions>) => {
      const parts = await (await deploy()).instance(options);
      const session = sessionRecord();
      expect(await parts.sessions.create(session, 100)).toBe(true);
      return { parts, session };
    };

    describe('sessions (McpSessionStore)', () => {
      it('stores a record and gives back a copy with the idle clock restarted; fields flow through', async () => {
        const parts = await (await deploy()).instance();
        const principal = { issuer: 'https://issuer', subject: 'alice', clientId: 'c1' };
        const record = { ...sessionRecord({ lastActivityAt: Date.now() - 1_000 }), principal } as McpSessionRecord;
        expect(await parts.sessions.create(record, 10)).toBe(true);
        const now = Date.now();

        const found = await parts.sessions.access(record.id, now, 60_000, principal);

        expect(found).toEqual({ ...record, lastActivityAt: now });
        found!.logLevel = 'debug';
        expect((await parts.sessions.access(record.id, now, 60_000, principal))?.logLevel).toBeUndefined();
        expect(await parts.sessions.access(newId(), now, 60_000)).toBeUndefined();
        expect(await parts.sessions.count()).toBe(1);
      });

      it("finds a session only for its own principal; another principal's lookup changes nothing", async () => {
        const parts = await (await deploy()).instance();
        const ended = endsOf(parts);
        const alice = { issuer: 'https://issuer', subject: 'alice', clientId: 'c1' };
        const start = Date.now() - 100_000;
        const bound = { ...sessionRecord({ lastActivityAt: start }), principal: alice } as McpSessionRecord;
        const open = sessionRecord({ lastActivityAt: start });
        for (const record of [bound, open]) expect(await parts.sessions.create(record, 10)).toBe(true);

        // Another subject, the same subject of another client, anonymous: none finds it.
        for (const other of [{ ...alice, subject: 'mallory' }, { ...alice, clientId: 'c2' }, undefined]) {
          expect(await parts.sessions.access(bound.id, start + 50_000, 60_000, other)).toBeUndefined();
        }
        // Nor does a bound caller find an unbound session.
        expect(await parts.sessions.access(open.id, start + 50_000, 60_000, alice)).toBeUndefined();
        // Found idle past its timeout by a foreign lookup: still not ended by it.
        expect(await parts.sessions.access(bound.id, start + 90_000, 60_000, undefined)).toBeUndefined();
        expect(await parts.sessions.count()).toBe(2);

        // None of those lookups restarted the idle clocks: both sessions are idle for 70 s now.
        expect(await parts.sessions.access(bound.id, start + 70_000, 69_000, alice)).toBeUndefined();
        expect(await parts.sessions.access(open.id, start + 70_000, 69_000)).toBeUndefined();
        await Promise.all([ended.waitFor(bound.id), ended.waitFor(open.id)]);
        expect(await parts.sessions.count()).toBe(0);
      });

      it('updates stored facts of a live session, and never re-creates an ended one', async () => {
        const { parts, session } = await single();
        expect(await parts.sessions.update(session.id, { initialized: true, logLevel: 'warning' })).toBe(true);
        expect(await parts.sessions.access(session.id, Date.now(), 60_000)).toEqual(
          expect.objectContaining({ initialized: true, logLevel: 'warning' }),
        );

        expect(await parts.sessions.end(session.id, 'deleted')).toBe(true);
        expect(await parts.sessions.update(session.id, { logLevel: 'debug' })).toBe(false);
        expect(await parts.sessions.access(session.id, Date.now(), 60_000)).toBeUndefined();
        expect(await parts.sessions.count()).toBe(0);
      });

      it('never lets concurrent creates pass the cap', async () => {
        const parts = await (await deploy()).instance();
        const created = await Promise.all(Array.from({ length: 20 }, () => parts.sessions.create(sessionRecord(), 5)));
        expect(created.filter(Boolean)).toHaveLength(5);
        expect(await parts.sessions.count()).toBe(5);
      });

      it('ends a session once, and announces it once with its reason', async () => {
        const { parts, session } = await single();
        const { ends } = endsOf(parts);
        expect(await parts.sessions.end(session.id, 'deleted')).toBe(true);
        expect(await parts.sessions.end(session.id, 'deleted')).toBe(false);
        expect(ends).toEqual([[session.id, 'deleted']]);
      });

      it('ends a session found idle on access, as expired', async () => {
        const parts = await (await deploy()).instance();
        const { ends } = endsOf(parts);
        const stale = sessionRecord({ lastActivityAt: Date.now() - 10_000 });
        await parts.sessions.create(stale, 10);

        expect(await parts.sessions.access(stale.id, Date.now(), 5_000)).toBeUndefined();
        expect(ends).toEqual([[stale.id, 'expired']]);
        expect(await parts.sessions.count()).toBe(0);
      });

      it('is honoured alike by the session manager, whether access answers at once or in a promise', async () => {
        const parts = await (await deploy()).instance();
        const ended = endsOf(parts);
        const options = resolveMcpOptions({
          serverInfo: { name: 'contract', version: '1' },
          sessions: { idleTimeoutMs: 5_000 },
        });
        const alice: McpPrincipal = {
          issuer: 'https://issuer',
          subject: 'alice',
          clientId: 'c1',
          scopes: [],
          audience: [],
          claims: {},
        };
        // The store's own answer (at once from an in-process store, a promise from a shared one),
        // then the same store answering every lookup in a promise: the manager treats both alike.
        for (const sessions of [parts.sessions, answeringInPromise(parts.sessions)]) {
          const manager = new McpSessionManager(sessions, parts.liveStreams, options, new McpTelemetry());
          const bound = sessionRecord({ principal: principalBinding(alice) });
          const stale = sessionRecord({ lastActivityAt: Date.now() - 10_000 });
          for (const record of [bound, stale]) expect(await parts.sessions.create(record, 100)).toBe(true);

          // Another principal, or none, finds nothing: the same answer as an unknown id.
          expect(await manager.resolve(bound.id, { ...alice, subject: 'mallory' })).toBeUndefined();
          expect(await manager.resolve(bound.id)).toBeUndefined();
          expect(await manager.resolve(newId())).toBeUndefined();
          expect(await manager.resolve(bound.id, alice)).toEqual({ ...bound, lastActivityAt: expect.any(Number) });
          // Idle past the timeout: not found, and ended as expired.
          expect(await manager.resolve(stale.id)).toBeUndefined();
          await ended.waitFor(stale.id);
          expect(ended.ends.filter(([id]) => id === stale.id)).toEqual([[stale.id, 'expired']]);
        }
      });

      it('expires idle sessions only; a touched one lives on', async () => {
        const parts = await (await deploy()).instance();
        const now = Date.now();
        const idle = sessionRecord({ lastActivityAt: now - 10_000 });
        const touched = sessionRecord({ lastActivityAt: now - 10_000 });
        const fresh = sessionRecord({ lastActivityAt: now });
        for (const record of [idle, touched, fresh]) await parts.sessions.create(record, 10);
        await parts.sessions.touch([touched.id], now);

        expect(await parts.sessions.expireIdle(now - 5_000)).toBe(1);
        expect(await parts.sessions.access(idle.id, now, 60_000)).toBeUndefined();
        expect(await parts.sessions.access(touched.id, now, 60_000)).toBeDefined();
        expect(await parts.sessions.access(fresh.id, now, 60_000)).toBeDefined();
        expect(await parts.sessions.expireIdle(now - 5_000)).toBe(0);
      });

      it('ending a session removes its subscriptions, outbox and POST-stream logs in the same step', async () => {
        const { parts, session } = await single();
        await parts.subscriptions.subscribe(session.id, 'db://a');
        await parts.fanout.resourceUpdated('db://a');
        const answer = new FakeConnection();
        const post = parts.postStreams.open(session.id, answer);
        post.send('{"jsonrpc":"2.0","method":"notifications/progress"}');
        await answer.waitForCount(1);

        expect(await parts.sessions.end(session.id, 'deleted')).toBe(true);

        expect(await parts.subscriptions.count()).toBe(0);
        expect(await parts.subscriptions.subscriptionsOf(session.id)).toEqual([]);
        expect(await parts.fanout.resourceUpdated('db://a')).toEqual({ sessions: 0, listeners: 0 });
        expect(await parts.postStreams.resume(session.id, answer.sent[0].eventId!, new FakeConnection())).toBe(
          'unknown',
        );
        expect(await parts.liveStreams.attach(session.id, new FakeConnection())).toBe(false);
        expect(parts.liveStreams.holds(session.id)).toBe(false);
      });
    });

    describe('subscriptions (McpSubscriptionStore)', () => {
      it('subscribes idempotently, indexes both ways, unsubscribes safely', async () => {
        const { parts, session } = await single();
        const other = sessionRecord();
        await parts.sessions.create(other, 100);
        const subs = parts.subscriptions;
        expect(await subs.subscribe(session.id, 'db://a')).toBe(true);
        expect(await subs.subscribe(session.id, 'db://a')).toBe(true);
        expect(await subs.subscribe(session.id, 'db://b')).toBe(true);
        expect(await subs.subscribe(other.id, 'db://a')).toBe(true);

        expect([...(await subs.subscribersOf('db://a'))].sort()).toEqual([session.id, other.id].sort());
        expect([...(await subs.subscriptionsOf(session.id))].sort()).toEqual(['db://a', 'db://b']);
        expect(await subs.count()).toBe(3);

        await subs.unsubscribe(session.id, 'db://a');
        await subs.unsubscribe(session.id, 'db://a');
        await subs.unsubscribe(newId(), 'db://never');
        expect([...(await subs.subscribersOf('db://a'))]).toEqual([other.id]);
        expect(await subs.count()).toBe(2);
      });

      it('refuses a subscription for a session that ended, and stores none', async () => {
        const { parts, session } = await single();
        await parts.sessions.end(session.id, 'deleted');

        expect(await parts.subscriptions.subscribe(session.id, 'db://a')).toBe(false);
        expect(await parts.subscriptions.count()).toBe(0);
        expect([...(await parts.subscriptions.subscribersOf('db://a'))]).toEqual([]);
      });

      it('caps the URIs of a session: past the limit a new one is full and stored nowhere; held ones stay true', async () => {
        const { parts, session } = await single();
        const other = sessionRecord();
        await parts.sessions.create(other, 100);
        const subs = parts.subscriptions;
        expect(await subs.subscribe(session.id, 'db://a', 2)).toBe(true);
        expect(await subs.subscribe(session.id, 'db://b', 2)).toBe(true);

        expect(await subs.subscribe(session.id, 'db://c', 2)).toBe('full');
        expect(await subs.subscribe(session.id, 'db://a', 2)).toBe(true);
        expect([...(await subs.subscriptionsOf(session.id))].sort()).toEqual(['db://a', 'db://b']);
        expect([...(await subs.subscribersOf('db://c'))]).toEqual([]);
        expect(await subs.count()).toBe(2);
        // The cap is per session; an unsubscribe makes room.
        expect(await subs.subscribe(other.id, 'db://c', 2)).toBe(true);
        await subs.unsubscribe(session.id, 'db://a');
        expect(await subs.subscribe(session.id, 'db://c', 2)).toBe(true);
        expect([...(await subs.subscribersOf('db://c'))].sort()).toEqual([session.id, other.id].sort());
      });

      it('never lets concurrent subscribes pass the cap', async () => {
        const { parts, session } = await single();
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => parts.subscriptions.subscribe(session.id, `db://n/${i}`, 5)),
        );
        expect(outcomes.filter((outcome) => outcome === true)).toHaveLength(5);
        expect(outcomes.filter((outcome) => outcome === 'full')).toHaveLength(15);
        expect(await parts.subscriptions.subscriptionsOf(session.id)).toHaveLength(5);
        expect(await parts.subscriptions.count()).toBe(5);
      });
    });

    describe('fan-out (McpFanout)', () => {
      it('sends resources/updated to exactly the subscribers, with g:<epoch>:<seq> event ids', async () => {
        const { parts, session } = await single();
        const bystander = sessionRecord();
        await parts.sessions.create(bystander, 100);
        await parts.subscriptions.subscribe(session.id, 'db://a');
        await parts.subscriptions.subscribe(bystander.id, 'db://b');
        const stream = new FakeConnection();
        const other = new FakeConnection();
        expect(await parts.liveStreams.attach(session.id, stream)).toBe(true);
        expect(await parts.liveStreams.attach(bystander.id, other)).toBe(true);
        expect(parts.liveStreams.holds(session.id)).toBe(true);

        expect(await parts.fanout.resourceUpdated('db://a')).toEqual({ sessions: 1, listeners: 0 });
        const first = await stream.waitFor(updated('db://a'));
        expect(first.eventId).toMatch(/^g:[A-Za-z0-9_-]+:\d+$/);
        expect(JSON.parse(first.json)).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri: 'db://a' },
        });
        // Barrier for the bystander: its own URI; nothing of db://a came before it.
        await parts.fanout.resourceUpdated('db://b');
        await other.waitFor(updated('db://b'));
        expect(other.summary).toEqual(['notifications/resources/updated db://b']);
        expect(await parts.fanout.resourceUpdated('db://nobody')).toEqual({ sessions: 0, listeners: 0 });
      });

      it('records list changes for sessions that held a stream, and reaches listeners of the list', async () => {
        const { parts, session } = await single();
        const never = sessionRecord();
        await parts.sessions.create(never, 100);
        const stream = new FakeConnection();
        await parts.liveStreams.attach(session.id, stream);
        const tools = listener([], ['tools']);
        const remove = parts.fanout.addListener(tools);

        expect(await parts.fanout.listChanged('tools')).toEqual({ sessions: 1, listeners: 1 });
        await stream.waitFor(listChanged);
        await tools.heard.waitForCount(1);
        remove();
        expect(await parts.fanout.listChanged('tools')).toEqual({ sessions: 1, listeners: 0 });
      });

      it('counts a session among list-change audiences once it held a stream, not for a logged POST answer', async () => {
        const { parts, session } = await single();
        const answer = new FakeConnection();
        const post = parts.postStreams.open(session.id, answer);
        post.send('{"jsonrpc":"2.0","method":"notifications/progress"}');
        await answer.waitForCount(1);

        expect(await parts.fanout.listChanged('tools')).toEqual({ sessions: 0, listeners: 0 });
        const stream = new FakeConnection();
        await parts.liveStreams.attach(session.id, stream);
        expect(await parts.fanout.listChanged('tools')).toEqual({ sessions: 1, listeners: 0 });
        await stream.waitFor(listChanged);
      });

      it('tells modern listeners of a URI, and only them', async () => {
        const parts = await (await deploy()).instance();
        const a = listener(['db://a']);
        const b = listener(['db://b']);
        parts.fanout.addListener(a);
        parts.fanout.addListener(b);

        expect(await parts.fanout.resourceUpdated('db://a')).toEqual({ sessions: 0, listeners: 1 });
        await a.heard.waitFor(updated('db://a'));
        await parts.fanout.resourceUpdated('db://b');
        await b.heard.waitFor(updated('db://b'));
        expect(b.heard.summary).toEqual(['notifications/resources/updated db://b']);
      });
    });

    describe('live streams (McpLiveStreams)', () => {
      it('a new stream replaces the old one, which is closed; the old one gets nothing more', async () => {
        const { parts, session } = await single();
        await parts.subscriptions.subscribe(session.id, 'db://a');
        const first = new FakeConnection();
        const second = new FakeConnection();
        await parts.liveStreams.attach(session.id, first);
        await parts.liveStreams.attach(session.id, second);
        await first.waitClosed();

        await parts.fanout.resourceUpdated('db://a');
        await second.waitFor(updated('db://a'));
        expect(first.sent).toEqual([]);
      });

      it('replays exactly what was missed after Last-Event-ID, in order, and coalesces per URI while away', async () => {
        const { parts, session } = await single();
        for (const uri of ['db://a', 'db://b', 'db://c']) await parts.subscriptions.subscribe(session.id, uri);
        const first = new FakeConnection();
        await parts.liveStreams.attach(session.id, first);
        await parts.fanout.resourceUpdated('db://a');
        const seen = await first.waitFor(updated('db://a'));
        parts.liveStreams.detach(session.id, first);
        expect(parts.liveStreams.holds(session.id)).toBe(false);

        await parts.fanout.resourceUpdated('db://b');
        await parts.fanout.resourceUpdated('db://b');
        await parts.fanout.listChanged('tools');
        await parts.fanout.resourceUpdated('db://c');
        await parts.fanout.listChanged('tools');
        const resumed = new FakeConnection();
        expect(await parts.liveStreams.attach(session.id, resumed, seen.eventId)).toBe(true);
        // A backend may write the replay on a later turn; the last missed event closes it.
        await resumed.waitFor(updated('db://c'));

        expect(resumed.summary).toEqual([
          'notifications/resources/updated db://b',
          'notifications/tools/list_changed',
          'notifications/resources/updated db://c',
        ]);
        const seqs = resumed.sent.map((sent) => seqOf(sent.eventId));
        expect(seqs[0]).toBeGreaterThan(seqOf(seen.eventId));
        expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
        // Live again afterwards.
        await parts.fanout.resourceUpdated('db://a');
        await resumed.waitFor(updated('db://a'));
      });

      it('a reconnect with the latest id replays nothing', async () => {
        const { parts, session } = await single();
        await parts.subscriptions.subscribe(session.id, 'db://a');
        const first = new FakeConnection();
        await parts.liveStreams.attach(session.id, first);
        await parts.fanout.resourceUpdated('db://a');
        const last = await first.waitFor(updated('db://a'));
        parts.liveStreams.detach(session.id, first);

        const resumed = new FakeConnection();
        await parts.liveStreams.attach(session.id, resumed, last.eventId);
        expect(resumed.sent).toEqual([]);
      });

      it('resyncs on an unknown, foreign or trimmed id: updated for each subscription, then every list change', async () => {
        const { parts, session } = await single({ delivery: { replayBufferSize: 3 } });
        const other = sessionRecord();
        await parts.sessions.create(other, 100);
        await parts.subscriptions.subscribe(session.id, 'db://a');
        await parts.subscriptions.subscribe(other.id, 'db://a');
        const otherStream = new FakeConnection();
        await parts.liveStreams.attach(other.id, otherStream);
        await parts.fanout.resourceUpdated('db://a');
        const foreign = (await otherStream.waitFor(updated('db://a'))).eventId!;
        const resync = [
          'notifications/resources/updated db://a',
          'notifications/resources/list_changed',
          'notifications/tools/list_changed',
          'notifications/prompts/list_changed',
        ];

        for (const lastEventId of ['g:not-ours:4', foreign, 'nonsense']) {
          const stream = new FakeConnection();
          await parts.liveStreams.attach(session.id, stream, lastEventId);
          expect(stream.summary).toEqual(resync);
          expect(new Set(stream.sent.map((sent) => sent.eventId)).size).toBe(4);
          parts.liveStreams.detach(session.id, stream);
        }

        // Trimmed: more than replayBufferSize events after the id.
        const stream = new FakeConnection();
        await parts.liveStreams.attach(session.id, stream);
        await parts.fanout.resourceUpdated('db://a');
        const old = (await stream.waitFor(updated('db://a'))).eventId!;
        for (let i = 0; i < 5; i++) await parts.fanout.listChanged('tools');
        await stream.waitForCount(6);
        parts.liveStreams.detach(session.id, stream);
        const late = new FakeConnection();
        await parts.liveStreams.attach(session.id, late, old);
        expect(late.summary).toEqual(resync);
      });

      it('writes to the live stream of a session, and says when it has none', async () => {
        const { parts, session } = await single();
        expect(parts.liveStreams.send(session.id, '{"jsonrpc":"2.0","method":"ping","id":1}')).toBe(false);
        const stream = new FakeConnection();
        await parts.liveStreams.attach(session.id, stream);
        expect(parts.liveStreams.send(session.id, '{"jsonrpc":"2.0","method":"ping","id":2}')).toBe(true);
        await stream.waitFor((sent) => sent.message.id === 2);
        expect([...parts.liveStreams.heldSessions()]).toEqual([session.id]);
      });

      it('refuses to attach a stream to a session that ended; ending closes the live stream', async () => {
        const { parts, session } = await single();
        const stream = new FakeConnection();
        await parts.liveStreams.attach(session.id, stream);
        await parts.sessions.end(session.id, 'deleted');
        await stream.waitClosed();
        expect(parts.liveStreams.holds(session.id)).toBe(false);
        expect(await parts.liveStreams.attach(session.id, new FakeConnection())).toBe(false);
      });

      it('drains: every stream closes with a retry hint, and the session lives on to resume', async () => {
        const { parts, session } = await single();
        await parts.subscriptions.subscribe(session.id, 'db://a');
        const stream = new FakeConnection();
        await parts.liveStreams.attach(session.id, stream);
        await parts.fanout.resourceUpdated('db://a');
        const seen = await stream.waitFor(updated('db://a'));

        await parts.liveStreams.drain();

        expect(stream.closed).toBe(true);
        expect(stream.closedWith).toBeGreaterThan(0);
        expect(await parts.sessions.access(session.id, Date.now(), 60_000)).toBeDefined();
        await parts.fanout.resourceUpdated('db://a');
        const resumed = new FakeConnection();
        await parts.liveStreams.attach(session.id, resumed, seen.eventId);
        await resumed.waitFor(updated('db://a'));
        expect(resumed.summary).toEqual(['notifications/resources/updated db://a']);
      });
    });

    describe('POST streams (McpPostStreams)', () => {
      it('logs a POST answer so that a dropped client resumes it: replay, then the rest live, then the end', async () => {
        const { parts, session } = await single();
        const answer = new FakeConnection();
        const post = parts.postStreams.open(session.id, answer);
        post.send('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}');
        post.send('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}}');
        await answer.waitForCount(2);
        expect(answer.sent[0].eventId).toMatch(/^p:[A-Za-z0-9_-]+:1$/);

        const resumed = new FakeConnection();
        expect(await parts.postStreams.resume(session.id, answer.sent[0].eventId!, resumed)).toBe('resumed');
        await resumed.waitForCount(1);
        expect(resumed.sent[0].eventId).toBe(answer.sent[1].eventId);
        post.send('{"jsonrpc":"2.0","id":7,"result":{}}');
        await resumed.waitFor((sent) => sent.message.id === 7);
        post.finish();
        await resumed.waitClosed();
      });

      it('says unknown for ids it never issued, and gap when the history after the id was dropped', async () => {
        const { parts, session } = await single({ delivery: { replayBufferSize: 2 } });
        const answer = new FakeConnection();
        const post = parts.postStreams.open(session.id, answer);
        for (let n = 1; n <= 5; n++)
          post.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":${n}}}`);
        await answer.waitForCount(5);
        const [streamId] = answer.sent[0].eventId!.split(':').slice(1);

        expect(await parts.postStreams.resume(session.id, `p:${streamId}:1`, new FakeConnection())).toBe('gap');
        expect(await parts.postStreams.resume(session.id, 'p:nope:1', new FakeConnection())).toBe('unknown');
        expect(await parts.postStreams.resume(session.id, 'g:x:1', new FakeConnection())).toBe('unknown');
        expect(await parts.postStreams.resume(newId(), answer.sent[4].eventId!, new FakeConnection())).toBe('unknown');
      });

      it('keeps a POST stream of an ended session writing, but not logged', async () => {
        const { parts, session } = await single();
        await parts.sessions.end(session.id, 'deleted');
        const live = new FakeConnection();
        const post = parts.postStreams.open(session.id, live);
        post.send('{"jsonrpc":"2.0","method":"notifications/progress"}');
        await live.waitForCount(1);
        expect(await parts.postStreams.resume(session.id, live.sent[0].eventId!, new FakeConnection())).toBe('unknown');
      });

      it('ends the answers of a session with it: every connection carrying one closes, a resumed one included', async () => {
        const { parts, session } = await single();
        const { resumed } = await resumedAnswer(parts, session.id);
        const other = new FakeConnection();
        parts.postStreams.open(session.id, other).send(progress(1));
        await other.waitForCount(1);

        await parts.sessions.end(session.id, 'deleted');

        await resumed.waitClosed();
        await other.waitClosed();
      });

      it('drains: a resumed answer closes with a retry hint, stays logged, and resumes again', async () => {
        const { parts, session } = await single();
        const { post, resumed } = await resumedAnswer(parts, session.id);

        await parts.postStreams.drain();

        expect(resumed.closed).toBe(true);
        expect(resumed.closedWith).toBeGreaterThan(0);
        post.send('{"jsonrpc":"2.0","id":7,"result":{}}');
        post.finish();
        const again = new FakeConnection();
        expect(await parts.postStreams.resume(session.id, resumed.sent[0].eventId!, again)).toBe('resumed');
        await again.waitFor((sent) => sent.message.id === 7);
        await again.waitClosed();
        expect(again.sent.map((sent) => seqOf(sent.eventId))).toEqual([3]);
      });
    });

    describe('request-state nonces (McpRequestStateNonces, the replay guard of MRTR requestState)', () => {
      it('consumes a nonce once: true the first time, false after; other nonces are their own', async () => {
        const nonces = noncesOf(await (await deploy()).instance());
        const expiresAt = Date.now() + 60_000;
        const [first, other] = [newId(), newId()];
        expect(await nonces.consume(first, expiresAt)).toBe(true);
        expect(await nonces.consume(first, expiresAt)).toBe(false);
        expect(await nonces.consume(first, expiresAt + 60_000)).toBe(false);
        expect(await nonces.consume(other, expiresAt)).toBe(true);
      });

      it('lets exactly one of concurrent consumes of one nonce through', async () => {
        const nonces = noncesOf(await (await deploy()).instance());
        const nonce = newId();
        const outcomes = await Promise.all(Array.from({ length: 8 }, () => nonces.consume(nonce, Date.now() + 60_000)));
        expect(outcomes.filter(Boolean)).toHaveLength(1);
      });

      it('forgets a nonce once its state has expired: what it holds is bounded by the states alive', async () => {
        const nonces = noncesOf(await (await deploy()).instance());
        // A short-lived state's nonce, taken first (states of one module all live as long, so
        // each is taken after those that expire before it)...
        const nonce = newId();
        expect(await nonces.consume(nonce, Date.now() + 50)).toBe(true);
        // ...a nonce is refused again while its state lives (a life no machine's pace outruns)...
        const held = newId();
        expect(await nonces.consume(held, Date.now() + 60_000)).toBe(true);
        expect(await nonces.consume(held, Date.now() + 60_000)).toBe(false);
        // ...and forgotten once its state has expired.
        await eventually(() => nonces.consume(nonce, Date.now() + 60_000), `${nonce} forgotten after its expiry`);
      });
    });

    describeTaskStoreContract(subject, deploy);
    describeSkillStoreContract(subject, deploy);

    if (!subject.shared) return;

    describe('several instances behave as one', () => {
      const two = async (options?: Partial<McpModuleOptions>) => {
        const world = await deploy();
        const a = await world.instance(options);
        const b = await world.instance(options);
        const session = sessionRecord();
        expect(await a.sessions.create(session, 100)).toBe(true);
        return { a, b, session };
      };

      describe('sessions (McpSessionStore)', () => {
        it('a session created on one instance is served, updated and ended on another, and every instance hears the end', async () => {
          const { a, b, session } = await two();
          const endsA = endsOf(a);
          const endsB = endsOf(b);
          expect(await b.sessions.update(session.id, { logLevel: 'error' })).toBe(true);
          expect((await a.sessions.access(session.id, Date.now(), 60_000))?.logLevel).toBe('error');

          expect(await b.sessions.end(session.id, 'deleted')).toBe(true);
          await endsA.waitFor(session.id);
          await endsB.waitFor(session.id);
          expect(endsA.ends).toEqual([[session.id, 'deleted']]);
          expect(endsB.ends).toEqual([[session.id, 'deleted']]);
          expect(await a.sessions.access(session.id, Date.now(), 60_000)).toBeUndefined();
        });

        it('caps sessions across instances', async () => {
          const world = await deploy();
          const a = await world.instance();
          const b = await world.instance();
          const created = await Promise.all(
            Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).sessions.create(sessionRecord(), 5)),
          );
          expect(created.filter(Boolean)).toHaveLength(5);
        });
      });

      describe('subscriptions (McpSubscriptionStore)', () => {
        it('caps the subscriptions of a session across instances', async () => {
          const { a, b, session } = await two();
          const outcomes = await Promise.all(
            Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).subscriptions.subscribe(session.id, `db://n/${i}`, 5)),
          );
          expect(outcomes.filter((outcome) => outcome === true)).toHaveLength(5);
          expect(await b.subscriptions.subscriptionsOf(session.id)).toHaveLength(5);
        });
      });

      describe('fan-out (McpFanout)', () => {
        it('an update published on one instance reaches the stream held by another, and listeners everywhere', async () => {
          const { a, b, session } = await two();
          await a.subscriptions.subscribe(session.id, 'db://a');
          const stream = new FakeConnection();
          await b.liveStreams.attach(session.id, stream);
          const far = listener(['db://a']);
          b.fanout.addListener(far);

          expect((await a.fanout.resourceUpdated('db://a')).sessions).toBe(1);
          await stream.waitFor(updated('db://a'));
          await far.heard.waitFor(updated('db://a'));
          await a.fanout.listChanged('prompts');
          await stream.waitFor(listChanged);
        });
      });

      describe('live streams (McpLiveStreams)', () => {
        it('event ids mean the same on every instance: a stream dropped on one resumes on another, missing nothing', async () => {
          const { a, b, session } = await two();
          await a.subscriptions.subscribe(session.id, 'db://a');
          await a.subscriptions.subscribe(session.id, 'db://b');
          const first = new FakeConnection();
          await a.liveStreams.attach(session.id, first);
          await b.fanout.resourceUpdated('db://a');
          const seen = await first.waitFor(updated('db://a'));
          a.liveStreams.detach(session.id, first);

          await a.fanout.resourceUpdated('db://b');
          const resumed = new FakeConnection();
          await b.liveStreams.attach(session.id, resumed, seen.eventId);
          expect(resumed.summary).toEqual(['notifications/resources/updated db://b']);
          await a.fanout.resourceUpdated('db://a');
          await resumed.waitFor(updated('db://a'));
        });

        it('a new stream on another instance replaces the old one, which its holder closes', async () => {
          const { a, b, session } = await two();
          await a.subscriptions.subscribe(session.id, 'db://a');
          const first = new FakeConnection();
          await a.liveStreams.attach(session.id, first);
          const second = new FakeConnection();
          await b.liveStreams.attach(session.id, second);
          await first.waitClosed();
          expect(a.liveStreams.holds(session.id)).toBe(false);

          await a.fanout.resourceUpdated('db://a');
          await second.waitFor(updated('db://a'));
          expect(first.sent).toEqual([]);
        });

        it('ending a session on one instance closes its stream on another', async () => {
          const { a, b, session } = await two();
          const stream = new FakeConnection();
          await b.liveStreams.attach(session.id, stream);
          await a.sessions.end(session.id, 'deleted');
          await stream.waitClosed();
          expect(b.liveStreams.holds(session.id)).toBe(false);
        });

        it('a stream held on another instance keeps its session from expiring', async () => {
          const { a, b, session } = await two();
          const stream = new FakeConnection();
          await b.liveStreams.attach(session.id, stream);
          const later = Date.now() + 60_000;
          expect(await a.sessions.expireIdle(later)).toBe(0);
          expect(await a.sessions.access(session.id, later, 1_000)).toBeDefined();
          b.liveStreams.detach(session.id, stream);
        });
      });

      describe('POST streams (McpPostStreams)', () => {
        it('a POST answer written on one instance resumes on another, and the rest follows live', async () => {
          const { a, b, session } = await two();
          const answer = new FakeConnection();
          const post = a.postStreams.open(session.id, answer);
          post.send('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}');
          post.send('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}}');
          await answer.waitForCount(2);

          const resumed = new FakeConnection();
          expect(await b.postStreams.resume(session.id, answer.sent[0].eventId!, resumed)).toBe('resumed');
          await resumed.waitForCount(1);
          post.send('{"jsonrpc":"2.0","id":9,"result":{}}');
          await resumed.waitFor((sent) => sent.message.id === 9);
          expect(resumed.sent.map((sent) => seqOf(sent.eventId))).toEqual([2, 3]);
          post.finish();
          await resumed.waitClosed();
        });

        it('ending a session on one instance ends its answer resumed on another', async () => {
          const { a, b, session } = await two();
          const answer = new FakeConnection();
          const post = a.postStreams.open(session.id, answer);
          post.send(progress(1));
          post.send(progress(2));
          await answer.waitForCount(2);
          const resumed = new FakeConnection();
          expect(await b.postStreams.resume(session.id, answer.sent[0].eventId!, resumed)).toBe('resumed');
          await resumed.waitForCount(1);

          await a.sessions.end(session.id, 'deleted');

          await resumed.waitClosed();
        });
      });

      describe('request-state nonces (McpRequestStateNonces)', () => {
        it('a request-state nonce consumed on one instance is refused on every other; of two at once, exactly one wins', async () => {
          const world = await deploy();
          const [a, b] = [noncesOf(await world.instance()), noncesOf(await world.instance())];
          const expiresAt = Date.now() + 60_000;
          const used = newId();
          expect(await a.consume(used, expiresAt)).toBe(true);
          expect(await b.consume(used, expiresAt)).toBe(false);
          expect(await a.consume(used, expiresAt)).toBe(false);
          for (let race = 0; race < 20; race++) {
            const nonce = newId();
            const outcomes = await Promise.all([a.consume(nonce, expiresAt), b.consume(nonce, expiresAt)]);
            expect(outcomes.filter(Boolean)).toHaveLength(1);
          }
        });
      });
    });
  });
}
