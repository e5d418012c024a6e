import type { RedisKeys } from './redis-keys.js';

/** Tasks whose callers' account keys an instance remembers (the first created are forgotten first). */
const REMEMBERED_TASKS = 10_000;

/**
 * The keys a task script declares (`KEYS`), see lua/tasks.lua.ts for the layout. On one Redis a
 * script names the store's anchor only: nothing checks the others. On a Redis Cluster it declares
 * every key it touches: the store's own (accounts, indexes, leases), the task's, and its caller's
 * accounts when this instance created it (so that the end of a task by the instance that runs it
 * takes one call; another instance's script asks for them first, see lua/tasks.lua.ts).
 */
export class TaskScriptKeys {
  private readonly store: readonly string[];
  private readonly callers = new Map<string, readonly string[]>();

  constructor(private readonly keys: RedisKeys) {
    const slot = keys.tasks;
    this.store = keys.clustered
      ? [
          slot,
          `${slot}:all`,
          `${slot}:all:b`,
          `${slot}:run`,
          `${slot}:tinst`,
          keys.leases,
          keys.lastBeat,
          keys.leaseGrace,
        ]
      : [slot];
  }

  get clustered(): boolean {
    return this.keys.clustered;
  }

  /** A script on the store as a whole (the lists of instances' tasks). */
  all(): string[] {
    return [...this.store];
  }

  /** A script on one task: its keys, and its caller's accounts when known. */
  task(taskId: string): string[] {
    if (!this.keys.clustered) return [...this.store];
    const task = `${this.keys.tasks}:t:${taskId}`;
    return [...this.store, task, `${task}:q`, `${task}:a`, ...(this.callers.get(taskId) ?? [])];
  }

  /** A task's create: its keys, its caller's accounts, its owner's index. */
  create(taskId: string, caller: string, owner: string): string[] {
    if (!this.keys.clustered) return [...this.store];
    this.remember(taskId, caller === '' ? [] : this.callerKeys(caller));
    return [...this.task(taskId), ...this.ownerKeys(owner)];
  }

  /** A list of an owner's tasks: the owner's index. */
  list(owner: string): string[] {
    return this.keys.clustered ? [...this.store, ...this.ownerKeys(owner)] : [...this.store];
  }

  private remember(taskId: string, keys: readonly string[]): void {
    this.callers.set(taskId, keys);
    if (this.callers.size > REMEMBERED_TASKS) this.callers.delete(this.callers.keys().next().value!);
  }

  private callerKeys(caller: string): string[] {
    return ['tc', 'te', 'tb'].map((kind) => `${this.keys.tasks}:${kind}:${caller}`);
  }

  private ownerKeys(owner: string): string[] {
    return [`${this.keys.tasks}:to:${owner}`, `${this.keys.tasks}:tox:${owner}`];
  }
}
