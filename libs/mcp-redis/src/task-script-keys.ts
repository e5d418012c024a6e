import type { RedisKeys } from './redis-keys.js';

/** Tasks whose callers' account keys an instance remembers (the first created are forgotten first). */
const REMEMBERED_TASKS = 10_000;

/**
 * The keys a task script declares (`KEYS`), see lua/tasks.lua.ts for the layout: the anchor of
 * the bucket it works in first. On one Redis a script names the anchor and the global counter
 * (which it updates in its own step there): nothing checks the others. On a Redis Cluster it declares every key it touches: the bucket's own (its share of the
 * global counter, its running tasks), the task's, and its caller's accounts when this instance
 * created it (so that the end of a task by the instance that runs it takes one script call;
 * another instance's script asks for them first, see lua/tasks.lua.ts).
 */
export class TaskScriptKeys {
  private readonly callers = new Map<string, readonly string[]>();

  constructor(private readonly keys: RedisKeys) {}

  get clustered(): boolean {
    return this.keys.clustered;
  }

  /** A script on a bucket as a whole (the tasks of instances, what lapsed). */
  bucket(bucket: number): string[] {
    const anchor = this.keys.taskBucket(bucket);
    return this.keys.clustered
      ? [anchor, `${anchor}:all`, `${anchor}:all:b`, `${anchor}:run`, `${anchor}:tinst`]
      : [anchor, this.keys.taskCount];
  }

  /** A script on one task: its bucket's keys, its own, and its caller's accounts when known. */
  task(taskId: string): string[] {
    const store = this.bucket(this.keys.taskBucketOfTask(taskId));
    if (!this.keys.clustered) return store;
    const task = `${store[0]}:t:${taskId}`;
    return [...store, task, `${task}:q`, `${task}:a`, ...(this.callers.get(taskId) ?? [])];
  }

  /** Whether an owner's index is in the task's bucket (then the create writes it). */
  ownedHere(taskId: string, owner: string): boolean {
    return this.keys.taskBucketOfOwner(owner) === this.keys.taskBucketOfTask(taskId);
  }

  /** A task's create: its keys, its caller's accounts, and its owner's index when in the same bucket. */
  create(taskId: string, caller: string, owner: string): string[] {
    if (!this.keys.clustered) return this.task(taskId);
    this.remember(taskId, caller === '' ? [] : this.callerKeys(this.keys.taskBucketOfTask(taskId), caller));
    return [...this.task(taskId), ...(this.ownedHere(taskId, owner) ? this.owner(owner).slice(1) : [])];
  }

  /** An owner's index, in the owner's bucket (a list of its tasks, the entry of a new one). */
  owner(owner: string): string[] {
    const anchor = this.keys.taskBucket(this.keys.taskBucketOfOwner(owner));
    return this.keys.clustered
      ? [anchor, `${anchor}:to:${owner}`, `${anchor}:tox:${owner}`]
      : [anchor, this.keys.taskCount];
  }

  private remember(taskId: string, keys: readonly string[]): void {
    this.callers.set(taskId, keys);
    if (this.callers.size > REMEMBERED_TASKS) this.callers.delete(this.callers.keys().next().value!);
  }

  private callerKeys(bucket: number, caller: string): string[] {
    const anchor = this.keys.taskBucket(bucket);
    return ['tc', 'te', 'tb'].map((kind) => `${anchor}:${kind}:${caller}`);
  }
}
