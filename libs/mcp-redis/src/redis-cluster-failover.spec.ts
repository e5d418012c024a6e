/**
 * The cluster changes under two instances serving a session with a live stream. A resharding
 * moves the slot of the session's bucket to another master while requests run: they answer or
 * fail with the backend's 503 error, and afterwards the session, a new subscription and its
 * notification work (the instance's sharded channel of that bucket followed the slot). A session
 * whose POST answers are logged is ended while its slot migrates (its logs and its other keys
 * on different nodes): the end waits until they are on one node, and deletes them all. Another
 * moves a task bucket's slot while tasks are created, asked, answered, ended, read, listed and
 * reaped: every task (and its budget) is there afterwards, and the store works on. A master
 * dies (kill -9): once its replica is promoted, the session, its subscriptions, its live stream
 * and the tasks work again, and a notification reaches the stream; nothing written before the
 * kill (and replicated) is lost. No process exits.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  deploymentOf,
  FakeConnection,
  sessionRecord,
  taskLimits,
  taskRecord,
  type BackendDeployment,
} from '@nest-mcp/server/testing';
import { McpBackendUnavailableError, McpLogger, type McpBackendParts } from '@nest-mcp/server/backend';
import { startCluster, type TestCluster } from '../../../test/support/redis-cluster.mjs';
import { until } from '../../../test/support/until.js';
import { RedisKeys } from './redis-keys.js';
import { RedisMcpBackend } from './redis.backend.js';

let cluster: TestCluster;
let deployment: BackendDeployment | undefined;

/** The backend's warnings (logged as usual, and kept to be checked), of the running test. */
const warn = jest.spyOn(McpLogger.prototype, 'warn');
beforeEach(() => {
  warn.mockClear();
});

beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);

/**
 * No script met a key outside its node's slots: every script declares every key it touches, so
 * the cluster redirects it (ASK, TRYAGAIN) before it runs instead of stopping it half way (a
 * task script refuses a key it did not declare itself).
 */
function noScriptLeftItsSlot(): void {
  const messages = warn.mock.calls.map(([message]) => String(message));
  expect(
    messages.filter((message) => /non local key|do not hash to the same slot|undeclared key/.test(message)),
  ).toEqual([]);
}

afterAll(async () => {
  await deployment?.close();
  await cluster?.stop();
});

/** Runs `work` until it succeeds; a failure meanwhile must be the backend's 503 (Redis failing over). */
async function once<T>(what: string, work: () => T | Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  await until(
    async () => {
      try {
        result = { value: await work() };
        return true;
      } catch (error) {
        expect(error).toBeInstanceOf(McpBackendUnavailableError);
        return false;
      }
    },
    what,
    30_000,
  );
  return result!.value;
}

const updated = (uri: string) => (sent: { json: string }) => sent.json.includes(`"uri":"${uri}"`);

/**
 * Publishes an update of `uri` from `instance` until `stream` shows one (every 500 ms, for at
 * most 10 s). Pub/sub drops what is published while a subscriber moves to its slot's new master;
 * what the cluster owes is that notifications flow again within seconds once it has moved (the
 * subscriber reads the slot map every second), not at some later heartbeat.
 */
async function flowsAgain(instance: McpBackendParts, stream: FakeConnection, uri: string): Promise<void> {
  for (let attempt = 0; attempt < 20 && !stream.sent.some(updated(uri)); attempt++) {
    await tolerated(() => instance.fanout.resourceUpdated(uri));
    const deadline = Date.now() + 500;
    while (Date.now() < deadline && !stream.sent.some(updated(uri))) await new Promise((r) => setTimeout(r, 10));
  }
  expect(stream.sent.some(updated(uri))).toBe(true);
}

/** The ports of the masters now. */
async function masters(): Promise<number[]> {
  const shards = (await cluster.command(Number(cluster.seeds[0].split(':')[1]), 'CLUSTER', 'SLOTS')) as [
    number,
    number,
    [string, number],
  ][];
  return [...new Set(shards.map((shard) => Number(shard[2][1])))];
}

/** Runs a request while the cluster changes: it answers, or fails with the backend's 503 error. */
async function tolerated(work: () => unknown): Promise<void> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(McpBackendUnavailableError);
  }
}

/**
 * Two instances (ids `<tag>1`, `<tag>2`) on the cluster under a fresh key prefix, and a session
 * created on the first, subscribed to `db://a`, with its stream attached there. With `beside`,
 * the session's bucket is on the master that serves that key.
 */
async function liveSession(tag: string, beside?: (keys: RedisKeys) => string) {
  const keyPrefix = cluster.prefix();
  const keys = new RedisKeys(keyPrefix, 256);
  let session = sessionRecord();
  if (beside) {
    const master = await cluster.masterOf(beside(keys));
    while ((await cluster.masterOf(keys.session(session.id))) !== master) session = sessionRecord();
  }
  let instances = 0;
  const running = (deployment = deploymentOf(
    () =>
      new RedisMcpBackend({
        clusterNodes: cluster.seeds,
        keyPrefix,
        instanceId: `${tag}${++instances}`,
        heartbeatMs: 200,
        commandTimeoutMs: 1_000,
      }),
  ));
  const a = await running.instance();
  const b = await running.instance();
  expect(await a.sessions.create(session, 100)).toBe(true);
  expect(await a.subscriptions.subscribe(session.id, 'db://a')).toBe(true);
  const stream = new FakeConnection();
  expect(await a.liveStreams.attach(session.id, stream)).toBe(true);
  return { running, keyPrefix, a, b, session, stream };
}

describe('Redis Cluster: the slot of a live session resharded to another master', () => {
  it('serves the session during and after the move; a new subscription and its notification reach the stream', async () => {
    const { running, keyPrefix, b, session, stream } = await liveSession('r');
    const key = new RedisKeys(keyPrefix, 256).session(session.id);
    const from = await cluster.masterOf(key);
    const to = (await masters()).find((port) => port !== from)!;

    await cluster.moveSlot(key, to, async () => {
      await tolerated(() => b.sessions.access(session.id, Date.now(), 60_000));
      await tolerated(() => b.fanout.resourceUpdated('db://a'));
    });

    expect(await cluster.masterOf(key)).toBe(to);
    expect((await once('the session found', () => b.sessions.access(session.id, Date.now(), 60_000)))?.id).toBe(
      session.id,
    );
    expect(await once('a new subscription', () => b.subscriptions.subscribe(session.id, 'db://b'))).toBe(true);
    await flowsAgain(b, stream, 'db://b');
    expect(stream.closed).toBe(false);
    noScriptLeftItsSlot();
    await running.close();
    deployment = undefined;
  }, 90_000);
});

describe('Redis Cluster: a session with POST-stream logs ended while its slot migrates', () => {
  it('waits until the logs and the session are on one node, then deletes them all', async () => {
    const { running, keyPrefix, a, b, session } = await liveSession('p');
    const keys = new RedisKeys(keyPrefix, 256);
    const key = keys.session(session.id);
    const from = await cluster.masterOf(key);
    const to = (await masters()).find((port) => port !== from)!;
    // Three answers logged (an event each): their logs and owner records, found by the end in
    // the session's index of logs only.
    const logKeys: string[] = [];
    for (let n = 0; n < 3; n++) {
      const answer = new FakeConnection();
      a.postStreams.open(session.id, answer).send(JSON.stringify({ jsonrpc: '2.0', id: n, result: {} }));
      const id = /^p:([^:]+):/.exec(answer.sent[0].eventId!)![1];
      logKeys.push(keys.postLog(session.id, id), `${key}:rm:${id}`);
    }
    const present = async () => Number(await cluster.command(from, 'EXISTS', ...logKeys));
    await until(async () => (await present()) === logKeys.length, 'the answers logged', 10_000);

    // The session's other keys and its bucket's move first, two at a time, the logs last: for a
    // while the keys an end declares up front are all on the new node and the logs still on the
    // old one. The end is tried after each batch (on the other instance) until it answers:
    // while the keys it touches are split between the nodes it fails with the 503 error.
    const tag = keys.bucketOf(session.id);
    const sessionKeys = [
      key,
      `${key}:subs`,
      `${key}:out`,
      `${key}:rs`,
      `${key}:rl`,
      keys.bucket(tag),
      keys.subscriptionCount(tag),
      keys.pendingEnds(tag),
    ];
    // Every key an end declares up front exists (a script's keys that exist only in part on a
    // node are refused there with TRYAGAIN): a rate window, a message in the outbox (sent from
    // the instance that does not hold the stream, which the lookup told it), and an end an
    // instance that died left queued in the bucket.
    expect(await a.rateWindows!.hit(`s:${session.id}`, 60_000, Date.now())).toBeDefined();
    await b.sessions.access(session.id, Date.now(), 60_000);
    expect(b.liveStreams.send(session.id, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message' }))).toBe(
      true,
    );
    const queued = JSON.stringify({ sid: 'gone', reason: 'expired', uris: [], from: 'p0' });
    await cluster.command(from, 'RPUSH', keys.pendingEnds(tag), queued);
    await until(
      async () => Number(await cluster.command(from, 'EXISTS', ...sessionKeys)) === sessionKeys.length,
      'every key of the end written',
      10_000,
    );
    let ended: boolean | undefined;
    await cluster.moveSlot(
      key,
      to,
      async () => {
        if (ended === undefined) await tolerated(async () => (ended = await b.sessions.end(session.id, 'deleted')));
      },
      [...sessionKeys, ...logKeys],
    );
    ended ??= await once('the session ended', () => b.sessions.end(session.id, 'deleted'));

    expect(ended).toBe(true);
    expect(await cluster.masterOf(key)).toBe(to);
    expect(Number(await cluster.command(to, 'EXISTS', key, `${key}:rs`, ...logKeys))).toBe(0);
    expect(
      await once('the session looked up', () => a.sessions.access(session.id, Date.now(), 60_000)),
    ).toBeUndefined();
    noScriptLeftItsSlot();
    await running.close();
    deployment = undefined;
  }, 90_000);
});

describe("Redis Cluster: a task bucket's slot resharded to another master under task traffic", () => {
  it('keeps every task and its budget; tasks are created, asked, answered, ended and read across instances after it', async () => {
    const { running, keyPrefix, a, b } = await liveSession('t');
    const keys = new RedisKeys(keyPrefix, 256);
    const input = { method: 'roots/list' as const, params: {} };
    // Three tasks a caller: creates beyond remove its oldest ended tasks (keys a create asks for).
    const limits = taskLimits({ maxPerCaller: 3 });
    const record = (caller: string) =>
      taskRecord({ instanceId: 't1', caller: `p:${caller}`, owner: `m:${caller}`, ttlMs: 600_000 }, a.tasks);
    // The bucket of the caller 'kept': its tasks and its budget.
    const bucket = keys.taskBucket(keys.taskBucketOfCaller('p:kept'));
    const asking = record('kept');
    expect(await a.tasks!.create(asking, limits)).toBe(true);
    expect(await a.tasks!.ask(asking.taskId, { k: input }, Date.now())).toBe(true);
    const done = record('kept');
    expect(await a.tasks!.create(done, limits)).toBe(true);
    // Ended by the instance that did not create it: it learns the caller's accounts by asking.
    expect(await b.tasks!.settle(done.taskId, { status: 'completed', result: { n: 1 } }, Date.now())).toBe('working');

    const from = await cluster.masterOf(bucket);
    const to = (await masters()).find((port) => port !== from)!;
    // Every request a task operation runs through, once between two batches of keys moved: each
    // answers or fails with the backend's 503 error (a script refused half way would be a 500).
    const traffic = async () => {
      const task = record('busy');
      await Promise.all([
        tolerated(async () => {
          if (!(await a.tasks!.create(task, limits))) return;
          await b.tasks!.ask(task.taskId, { q: input }, Date.now());
          await b.tasks!.answer(task.taskId, { q: { roots: [] } }, Date.now());
          await b.tasks!.settle(task.taskId, { status: 'completed', result: {} }, Date.now());
        }),
        tolerated(() => b.tasks!.get(asking.taskId)),
        tolerated(() => b.tasks!.list('m:kept', undefined, 10)),
        tolerated(() => b.tasks!.reapOrphans!(Date.now())),
      ]);
    };
    await cluster.moveSlot(bucket, to, traffic);
    expect(await cluster.masterOf(bucket)).toBe(to);

    const asked = await once('the asking task read', () => b.tasks!.get(asking.taskId));
    expect(asked).toMatchObject({ status: 'input_required', inputRequests: { k: input } });
    expect(await once('the ended task read', () => a.tasks!.get(done.taskId))).toMatchObject({
      status: 'completed',
      result: { n: 1 },
    });
    expect((await once('the tasks listed', () => a.tasks!.list('m:kept', undefined, 10))).records.length).toBe(2);
    // The caller's budget moved with the slot: one more task fits, the next one removes the ended one.
    const third = record('kept');
    expect(await once('a task created', () => b.tasks!.create(third, limits))).toBe(true);
    expect(await once('a task over the budget', () => b.tasks!.create(record('kept'), limits))).toBe(true);
    expect(await once('the ended task removed', () => a.tasks!.get(done.taskId))).toBeUndefined();
    expect(await once('a fifth refused', () => b.tasks!.create(record('kept'), limits))).toBe(false);
    expect(await once('an answer', () => a.tasks!.answer(asking.taskId, { k: { roots: [] } }, Date.now()))).toEqual([
      'k',
    ]);
    expect(
      await once('the asking task ended', () =>
        b.tasks!.settle(asking.taskId, { status: 'completed', result: {} }, Date.now()),
      ),
    ).toBe('working');
    noScriptLeftItsSlot();
    await running.close();
    deployment = undefined;
  }, 120_000);
});

describe('Redis Cluster: a master killed while it holds a live session', () => {
  it('serves the session, its subscriptions, stream and tasks after the promotion; notifications arrive', async () => {
    // The master killed serves the session's bucket and the leases' slot: no instance can renew
    // its lease until the promotion.
    const { keyPrefix, a, b, session, stream } = await liveSession('f', (keys) => keys.leases);
    const task = taskRecord({ instanceId: 'f2', sessionId: session.id, ttlMs: 600_000 }, b.tasks);
    expect(await b.tasks!.create(task, taskLimits())).toBe(true);
    expect((await b.fanout.resourceUpdated('db://a')).sessions).toBe(1);
    await stream.waitFor(updated('db://a'));

    const keys = new RedisKeys(keyPrefix, 256);
    const master = await cluster.masterOf(keys.session(session.id));
    await cluster.waitForReplication(master);
    await cluster.kill(master);
    await cluster.waitForFailover(master);

    // A look for orphans first, before the instances renew their leases on the promoted master:
    // every lease ended during the election, and none counts as gone for it.
    expect(await once('a look for orphans', () => a.tasks!.reapOrphans!(Date.now()))).toEqual([]);
    expect((await once('its task read', () => a.tasks!.get(task.taskId)))?.status).toBe('working');
    const found = await once('the session found again', () => b.sessions.access(session.id, Date.now(), 60_000));
    expect(found?.id).toBe(session.id);
    expect(await once('its subscriptions read', () => b.subscriptions.subscriptionsOf(session.id))).toEqual(['db://a']);
    expect(await once('a new subscription', () => b.subscriptions.subscribe(session.id, 'db://b'))).toBe(true);
    // The stream, held by instance a, hears notifications published after the promotion (its
    // sharded subscriptions moved to the new master).
    await flowsAgain(b, stream, 'db://b');
    expect(stream.closed).toBe(false);
    expect(
      await once('the task settled', () =>
        a.tasks!.settle(task.taskId, { status: 'completed', result: {} }, Date.now()),
      ),
    ).toBe('working');
    noScriptLeftItsSlot();
  }, 90_000);
});
