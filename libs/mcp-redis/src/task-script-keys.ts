import type { RedisKeys } from './redis-keys.js';

/** Tasks whose callers' account keys an instance remembers (the oldest are forgotten first). */
const REMEMBERED_TASKS = 10_000;

/**
 * The keys a task script declares (`KEYS`), see lua/tasks.lua.ts for the layout. On one Redis a
 * script names the store's anchor only: nothing checks the others. On a Redis Cluster it declares
 * every key it touches: the store's own (accounts, indexes, leases), the task's, and those found
 * by reading others (the caller's accounts of a task, remembered per task once learnt, so that a
 * task's next calls declare them at once and take one round trip).
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

  /** Remembers the caller's account keys a script asked for about a task (`{t}:tc:` and siblings). */
  learnt(taskId: string, asked: readonly string[]): void {
    const accounts = asked.filter((key) => /^\{t\}:t[ceb]:/.test(key.slice(this.keys.prefix.length)));
    if (accounts.length > 0) this.remember(taskId, accounts);
  }

  private remember(taskId: string, keys: readonly string[]): void {
    this.callers.delete(taskId);
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
