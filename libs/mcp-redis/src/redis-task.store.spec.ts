/**
 * The task store's keys in Redis: every key of a task, and the indexes that name it, expire with
 * it (nothing is left behind by a task nobody reads again), a poll is one command, the global
 * counter holds what the buckets hold, and a read fails the task of an instance lately gone.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ORPHANED_TASK, type McpBackendParts, type McpTaskStore } from '@nest-mcp/server/backend';
import { deploymentOf, taskRecord, type BackendDeployment } from '@nest-mcp/server/testing';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { watchRedis } from '../../../test/support/redis-monitor.js';
import { until } from '../../../test/support/until.js';
import { RedisScripts } from './redis-scripts.js';
import { RedisMcpBackend } from './redis.backend.js';
import { taskLimits } from '@nest-mcp/server/testing';

describe('RedisTaskStore', () => {
  let redis: TestRedis;
  let prefix: string;
  let deployment: BackendDeployment;
  let parts: McpBackendParts;
  let tasks: McpTaskStore;

  beforeAll(async () => {
    redis = await startRedis({ own: true });
    prefix = redis.prefix();
    deployment = deploymentOf(
      () => new RedisMcpBackend({ url: redis.url, keyPrefix: prefix, instanceId: 'tasks-1', heartbeatMs: 60_000 }),
    );
    parts = await deployment.instance();
    tasks = parts.tasks!;
  }, 30_000);

  afterAll(async () => {
    await deployment?.close();
    await redis?.stop();
  });

  it('lets every key of a task and of its indexes expire with it', async () => {
    // Long enough that a busy machine still finds every key before it expires; the existence and
    // the time to live of all keys are read in one script, so at one instant.
    const ttlMs = 3_000;
    const record = taskRecord({ instanceId: 'tasks-1', owner: 'm:expiring', caller: 'p:expiring', ttlMs });
    expect(await tasks.create(record, taskLimits({ maxPerCaller: 10 }))).toBe(true);
    expect(
      await tasks.ask(
        record.taskId,
        { a: { method: 'roots/list', params: {} }, b: { method: 'roots/list', params: {} } },
        Date.now(),
      ),
    ).toBe(true);
    expect(await tasks.answer(record.taskId, { a: { roots: [] } }, Date.now())).toEqual(['a']);
    const task = `${prefix}{t0}:t:${record.taskId}`;
    const keys = [
      task,
      `${task}:q`,
      `${task}:a`,
      `${prefix}{t0}:tc:p:expiring`,
      `${prefix}{t0}:tb:p:expiring`,
      `${prefix}{t0}:to:m:expiring`,
      `${prefix}{t0}:tox:m:expiring`,
    ];
    const ttls = (await redis.command(
      'EVAL',
      "local t = {} for i, k in ipairs(KEYS) do t[i] = redis.call('PTTL', k) end return t",
      keys.length,
      ...keys,
    )) as number[];
    expect(ttls).toHaveLength(keys.length);
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThan(0); // -2 would be a missing key, -1 one that never expires
      expect(ttl).toBeLessThanOrEqual(ttlMs);
    }
    await until(
      async () => (await redis.command('EXISTS', ...keys)) === 0,
      'every key of the task gone',
      ttlMs + 10_000,
    );
    // The global counter held its place until the next look gave it back.
    expect(await redis.command('HMGET', `${prefix}tasks`, 'n', 'b')).toEqual(['1', expect.any(String)]);
    expect(await tasks.reapOrphans!(Date.now())).toEqual([]);
    expect(await redis.command('HMGET', `${prefix}tasks`, 'n', 'b')).toEqual(['0', '0']);
  });

  it('answers a poll with one command: the script', async () => {
    const record = taskRecord({ instanceId: 'tasks-1' });
    await tasks.create(record, taskLimits({ maxPerCaller: 10 }));
    await tasks.get(record.taskId); // the script is in Redis's cache from here on
    const watch = await watchRedis(redis.url);
    try {
      await tasks.get(record.taskId);
    } finally {
      await watch.stop();
    }
    const commands = watch.commands.filter((command) => command.source !== 'lua');
    expect(commands.map((command) => command.args[0].toLowerCase())).toEqual(['evalsha']);
  });

  it("on one Redis a create, its owner's entry and the global counter are one step, and so is an end", async () => {
    const run = jest.spyOn(RedisScripts.prototype, 'run');
    try {
      const record = taskRecord({ instanceId: 'tasks-1', owner: 'm:counted-calls' }, tasks);
      expect(await tasks.create(record, taskLimits())).toBe(true);
      expect(run.mock.calls.map(([name]) => name)).toEqual(['mcpTaskCreate']);
      expect((await tasks.list('m:counted-calls', undefined, 10)).records.map((listed) => listed.taskId)).toEqual([
        record.taskId,
      ]);
      run.mockClear();
      await tasks.settle(record.taskId, { status: 'completed', result: {} }, Date.now());
      expect(run.mock.calls.map(([name]) => name)).toEqual(['mcpTaskSettle']);
    } finally {
      run.mockRestore();
    }
  });

  it('a status read leaves the result in Redis: its reply is as small for a 1 MiB result as for none', async () => {
    const record = taskRecord({ instanceId: 'tasks-1' });
    await tasks.create(record, taskLimits());
    const result = { content: [{ type: 'text', text: 'x'.repeat(1_048_576) }] };
    await tasks.settle(record.taskId, { status: 'completed', result }, Date.now());
    expect((await tasks.get(record.taskId))?.result).toEqual(result);
    const status = await tasks.get(record.taskId, { result: false });
    expect(status).toMatchObject({ taskId: record.taskId, status: 'completed' });
    expect(status?.result).toBeUndefined();
    const page = await tasks.list(record.owner, undefined, 10);
    expect(page.records.find((listed) => listed.taskId === record.taskId)?.result).toBeUndefined();
  });
  it('keeps in the global counter exactly what the buckets hold: through creates, ends, evictions and refusals', async () => {
    const own = redis.prefix();
    const world = deploymentOf(
      () => new RedisMcpBackend({ url: redis.url, keyPrefix: own, instanceId: 'tasks-1', heartbeatMs: 60_000 }),
    );
    try {
      const store = (await world.instance()).tasks!;
      const limits = taskLimits({ maxPerCaller: 2, maxStored: 4 });
      const records = [1, 2, 3].map(() => taskRecord({ instanceId: 'tasks-1', caller: 'p:counted' }, store));
      expect(await store.create(records[0], limits)).toBe(true);
      expect(await store.create(records[1], limits)).toBe(true);
      // The caller's budget is full of running tasks: refused, its place given back.
      expect(await store.create(records[2], limits)).toBe(false);
      await store.settle(records[0].taskId, { status: 'completed', result: { text: 'x'.repeat(500) } }, Date.now());
      // Makes room by removing the ended one.
      expect(await store.create(records[2], limits)).toBe(true);
      expect(await store.get(records[0].taskId)).toBeUndefined();
      const held = async () => {
        const ids = (await redis.command('ZRANGE', `${own}{t0}:all`, 0, -1)) as string[];
        const sizes = (await redis.command('HVALS', `${own}{t0}:all:b`)) as string[];
        return [String(ids.length), String(sizes.reduce((sum, size) => sum + Number(size), 0))];
      };
      expect(await held()).toEqual(['2', expect.any(String)]);
      expect(await redis.command('HMGET', `${own}tasks`, 'n', 'b')).toEqual(await held());
    } finally {
      await world.close();
    }
  });

  it('a read fails the running task of an instance whose lease ended lately, once this instance learnt it', async () => {
    const own = redis.prefix();
    const world = deploymentOf(
      () => new RedisMcpBackend({ url: redis.url, keyPrefix: own, instanceId: 'reader', heartbeatMs: 50 }),
    );
    try {
      const store = (await world.instance()).tasks!;
      const record = taskRecord({ instanceId: 'vanished' }, store);
      expect(await store.create(record, taskLimits())).toBe(true);
      // Its lease ended a second ago, and others have beaten since (no grace runs).
      const [seconds, micros] = (await redis.command('TIME')) as [string, string];
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      await redis.command('ZADD', `${own}{l}:leases`, now - 1_000, 'vanished');
      await until(
        async () => (await store.get(record.taskId))?.status === 'failed',
        'the task failed by a read',
        5_000,
      );
      expect(await store.get(record.taskId)).toMatchObject({
        statusMessage: ORPHANED_TASK.statusMessage,
        error: ORPHANED_TASK.error,
      });
      expect(await store.reapOrphans!(Date.now())).toEqual([]);
    } finally {
      await world.close();
    }
  });
});
