/**
 * The contract of a backend's task store (`McpBackendParts.tasks`), run by
 * `describeBackendContract` for every backend: what any instance answers for any task, the
 * budget per caller, terminal statuses that never change, input requests and answers, time to
 * live, listing, and (shared backends) orphaned tasks. Written with Jest's globals.
 */
import { randomBytes } from 'node:crypto';
import type { McpBackendParts } from '../backend/mcp-backend.interface.js';
import { McpTaskCursorError, ORPHANED_TASK, type McpTaskRecord, type McpTaskStore } from '../backend/mcp-task.store.js';
import type { BackendDeployment, BackendUnderTest } from './backend-deployment.js';

const newTaskId = (): string => randomBytes(18).toString('base64url');

/** A task record as the core creates it. */
export function taskRecord(overrides: Partial<McpTaskRecord> = {}): McpTaskRecord {
  const now = Date.now();
  return {
    taskId: newTaskId(),
    owner: 'm:owner',
    caller: 'p:caller',
    instanceId: 'instance',
    era: 'modern',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...overrides,
  };
}

/** The task store of an instance: every backend the contract checks has one. */
function tasksOf(parts: McpBackendParts): McpTaskStore {
  expect(parts.tasks).toBeDefined();
  return parts.tasks!;
}

/** A record owned by a live instance of `parts` (a shared store fails the tasks of any other). */
const liveRecord = (parts: McpBackendParts, overrides: Partial<McpTaskRecord> = {}): McpTaskRecord =>
  taskRecord({ instanceId: parts.messaging?.instanceId ?? 'instance', ...overrides });

/** Resolves once `condition()` holds, checked every 10 ms for at most 5 s (for expiries). */
async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 5000 ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Declares the task store's part of the contract (inside `describeBackendContract`). */
export function describeTaskStoreContract(subject: BackendUnderTest, deploy: () => Promise<BackendDeployment>): void {
  describe('tasks', () => {
    const single = async () => {
      const parts = await (await deploy()).instance();
      return { parts, tasks: tasksOf(parts) };
    };

    it('gives back what was created, every field; an unknown id is undefined', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts, {
        era: 'legacy',
        sessionId: 's-1',
        statusMessage: 'starting',
        requiredScopes: ['notes:write', 'notes:read'],
      });
      expect(await tasks.create(record, 10)).toBe(true);
      expect(await tasks.get(record.taskId)).toEqual(record);
      expect(await tasks.get(newTaskId())).toBeUndefined();
    });

    it('counts the tasks of a caller that have not ended against its budget; an end frees a place', async () => {
      const { parts, tasks } = await single();
      const [first, second, third] = [1, 2, 3].map(() => liveRecord(parts, { caller: 'p:busy' }));
      expect(await tasks.create(first, 2)).toBe(true);
      expect(await tasks.create(second, 2)).toBe(true);
      expect(await tasks.create(third, 2)).toBe(false);
      expect(await tasks.get(third.taskId)).toBeUndefined();
      // Another caller, and tasks counted for nobody, have their own room.
      expect(await tasks.create(liveRecord(parts, { caller: 'p:other' }), 2)).toBe(true);
      expect(await tasks.create(liveRecord(parts, { caller: undefined }), 2)).toBe(true);
      expect(await tasks.settle(first.taskId, { status: 'completed', result: { content: [] } }, Date.now())).toBe(
        'working',
      );
      expect(await tasks.create(third, 2)).toBe(true);
    });

    it('never changes a terminal status: later settles, messages, asks and answers change nothing', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts);
      await tasks.create(record, 10);
      const result = { content: [{ type: 'text', text: 'done' }], structuredContent: { list: [], map: {} } };
      expect(await tasks.settle(record.taskId, { status: 'completed', result, statusMessage: 'ok' }, Date.now())).toBe(
        'working',
      );
      const settled = await tasks.get(record.taskId);
      expect(settled).toMatchObject({ status: 'completed', statusMessage: 'ok', result });
      const error = { code: -32603, message: 'Internal error' };
      expect(await tasks.settle(record.taskId, { status: 'failed', error }, Date.now())).toBe('completed');
      expect(await tasks.setStatusMessage(record.taskId, 'late', Date.now())).toBe(false);
      expect(await tasks.ask(record.taskId, { k: { method: 'roots/list', params: {} } }, Date.now())).toBe(false);
      expect(await tasks.answer(record.taskId, { k: { roots: [] } }, Date.now())).toEqual([]);
      expect(await tasks.withdraw(record.taskId, ['k'], Date.now())).toBe(false);
      expect(await tasks.get(record.taskId)).toEqual(settled);
      expect(await tasks.settle(newTaskId(), { status: 'cancelled' }, Date.now())).toBeUndefined();
    });

    it('sets the status message of a running task and its last update', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts, { lastUpdatedAt: Date.now() - 1_000 });
      await tasks.create(record, 10);
      const now = Date.now();
      expect(await tasks.setStatusMessage(record.taskId, 'step 2 of 5', now)).toBe(true);
      expect(await tasks.get(record.taskId)).toMatchObject({ statusMessage: 'step 2 of 5', lastUpdatedAt: now });
    });

    it('input: asks make it input_required; answers to outstanding keys are taken once; none left is working', async () => {
      const { parts, tasks } = await single();
      const record = liveRecord(parts);
      await tasks.create(record, 10);
      // Params go back exactly as written: empty lists stay lists, empty objects objects.
      const first = {
        method: 'elicitation/create' as const,
        params: { message: 'a?', requestedSchema: { required: [] } },
      };
      const second = { method: 'roots/list' as const, params: {} };
      expect(await tasks.ask(record.taskId, { first, second }, Date.now())).toBe(true);
      expect(await tasks.get(record.taskId)).toMatchObject({
        status: 'input_required',
        inputRequests: { first, second },
      });
      expect(
        await tasks.answer(record.taskId, { first: { action: 'accept', content: {} }, stray: {} }, Date.now()),
      ).toEqual(['first']);
      expect(await tasks.answer(record.taskId, { first: { action: 'decline' } }, Date.now())).toEqual([]);
      const waiting = await tasks.get(record.taskId);
      expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { second } });
      expect(await tasks.takeAnswers(record.taskId)).toEqual({ first: { action: 'accept', content: {} } });
      expect(await tasks.takeAnswers(record.taskId)).toEqual({});
      expect(await tasks.answer(record.taskId, { second: { roots: [] } }, Date.now())).toEqual(['second']);
      const working = await tasks.get(record.taskId);
      expect(working?.status).toBe('working');
      expect(working?.inputRequests).toBeUndefined();
      expect(await tasks.takeAnswers(record.taskId)).toEqual({ second: { roots: [] } });
      // Withdrawn requests (answered elsewhere) leave too.
      expect(await tasks.ask(record.taskId, { third: second }, Date.now())).toBe(true);
      expect(await tasks.withdraw(record.taskId, ['third'], Date.now())).toBe(true);
      expect((await tasks.get(record.taskId))?.status).toBe('working');
    });

    it('forgets a task once its time to live lapsed, and frees its place in the budget', async () => {
      const { parts, tasks } = await single();
      const short = liveRecord(parts, { ttlMs: 50, caller: 'p:brief' });
      expect(await tasks.create(short, 1)).toBe(true);
      await eventually(async () => (await tasks.get(short.taskId)) === undefined, 'the task gone after its ttl');
      expect(await tasks.create(liveRecord(parts, { caller: 'p:brief' }), 1)).toBe(true);
    });

    it("lists one owner's tasks oldest first, a page at a time; an unknown cursor is refused", async () => {
      const { parts, tasks } = await single();
      const base = Date.now();
      const mine = [0, 1, 2].map((n) => liveRecord(parts, { owner: 'l:me:s', createdAt: base + n }));
      for (const record of mine) await tasks.create(record, 10);
      await tasks.create(liveRecord(parts, { owner: 'l:someone-else:s' }), 10);
      const first = await tasks.list('l:me:s', undefined, 2);
      expect(first.records.map((record) => record.taskId)).toEqual([mine[0].taskId, mine[1].taskId]);
      expect(first.nextCursor).toBeDefined();
      const second = await tasks.list('l:me:s', first.nextCursor, 2);
      expect(second.records.map((record) => record.taskId)).toEqual([mine[2].taskId]);
      expect(second.nextCursor).toBeUndefined();
      expect((await tasks.list('l:nobody', undefined, 2)).records).toEqual([]);
      await expect(tasks.list('l:me:s', 'not-a-cursor', 2)).rejects.toBeInstanceOf(McpTaskCursorError);
    });

    it('settles what still runs on one instance (an earlier life of its id), and nothing else', async () => {
      const { parts, tasks } = await single();
      const me = parts.messaging?.instanceId ?? 'instance';
      const [running, ended] = [liveRecord(parts), liveRecord(parts)];
      await tasks.create(running, 10);
      await tasks.create(ended, 10);
      await tasks.settle(ended.taskId, { status: 'completed', result: { content: [] } }, Date.now());
      const settlement = {
        status: 'failed' as const,
        statusMessage: 'restarted',
        error: { code: -32603, message: 'x' },
      };
      expect(await tasks.settleInstance(me, settlement, Date.now())).toEqual([running.taskId]);
      expect(await tasks.get(running.taskId)).toMatchObject({ status: 'failed', statusMessage: 'restarted' });
      expect((await tasks.get(ended.taskId))?.status).toBe('completed');
    });

    if (!subject.shared) return;

    describe('several instances', () => {
      it('any instance answers for any task, and sees the changes of every other', async () => {
        const world = await deploy();
        const [a, b] = [await world.instance(), await world.instance()];
        const record = liveRecord(a);
        expect(await tasksOf(a).create(record, 10)).toBe(true);
        expect(await tasksOf(b).get(record.taskId)).toEqual(record);
        expect(await tasksOf(b).settle(record.taskId, { status: 'cancelled' }, Date.now())).toBe('working');
        expect((await tasksOf(a).get(record.taskId))?.status).toBe('cancelled');
      });

      it('one budget per caller across instances: of concurrent creates, exactly the budget wins', async () => {
        const world = await deploy();
        const [a, b] = [await world.instance(), await world.instance()];
        const records = Array.from({ length: 8 }, () => liveRecord(a, { caller: 'p:racer' }));
        const outcomes = await Promise.all(records.map((record, i) => tasksOf(i % 2 ? a : b).create(record, 3)));
        expect(outcomes.filter(Boolean)).toHaveLength(3);
      });

      it('fails the tasks of an instance that is gone, on reading them and when looking for orphans', async () => {
        const world = await deploy();
        const a = await world.instance();
        const tasks = tasksOf(a);
        const [read, reaped] = [taskRecord({ instanceId: 'gone-1' }), taskRecord({ instanceId: 'gone-2' })];
        const alive = liveRecord(a);
        for (const record of [read, reaped, alive]) expect(await tasks.create(record, 10)).toBe(true);
        expect(await tasks.get(read.taskId)).toMatchObject({
          status: ORPHANED_TASK.status,
          statusMessage: ORPHANED_TASK.statusMessage,
          error: ORPHANED_TASK.error,
        });
        expect(tasks.reapOrphans).toBeDefined();
        expect(await tasks.reapOrphans!(Date.now())).toEqual([reaped.taskId]);
        expect((await tasks.get(reaped.taskId))?.status).toBe('failed');
        expect((await tasks.get(alive.taskId))?.status).toBe('working');
        expect(await tasks.reapOrphans!(Date.now())).toEqual([]);
      });
    });
  });
}
