/**
 * The task store's keys in Redis: every key of a task, and the indexes that name it, expire with
 * it (nothing is left behind by a task nobody reads again), and a poll is one command.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { McpBackendParts, McpTaskStore } from '@nest-mcp/server/backend';
import { deploymentOf, taskRecord, type BackendDeployment } from '@nest-mcp/server/testing';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { watchRedis } from '../../../test/support/redis-monitor.js';
import { until } from '../../../test/support/until.js';
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
    const record = taskRecord({ instanceId: 'tasks-1', owner: 'm:expiring', caller: 'p:expiring', ttlMs: 300 });
    expect(await tasks.create(record, taskLimits({ maxPerCaller: 10 }))).toBe(true);
    expect(
      await tasks.ask(
        record.taskId,
        { a: { method: 'roots/list', params: {} }, b: { method: 'roots/list', params: {} } },
        Date.now(),
      ),
    ).toBe(true);
    expect(await tasks.answer(record.taskId, { a: { roots: [] } }, Date.now())).toEqual(['a']);
    const task = `${prefix}{t}:t:${record.taskId}`;
    const keys = [
      task,
      `${task}:q`,
      `${task}:a`,
      `${prefix}{t}:tc:p:expiring`,
      `${prefix}{t}:tb:p:expiring`,
      `${prefix}{t}:to:m:expiring`,
      `${prefix}{t}:tox:m:expiring`,
    ];
    expect(await redis.command('EXISTS', ...keys)).toBe(keys.length);
    for (const key of keys) expect(Number(await redis.command('PTTL', key))).toBeGreaterThan(0);
    await until(async () => (await redis.command('EXISTS', ...keys)) === 0, 'every key of the task gone', 5_000);
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
});
