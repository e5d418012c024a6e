import type { Cluster, Redis } from 'ioredis';
import { ATTACH, DETACH, FANOUT, HEARTBEAT, HELD_SUBSCRIPTIONS, LOG_READ, RESYNC, SEND } from './lua/delivery.lua.js';
import { BEAT, DEAD_INSTANCES, RECENTLY_GONE } from './lua/liveness.lua.js';
import { POST_APPEND, POST_FINISH, POST_OPEN, POST_RESUME } from './lua/post-stream.lua.js';
import { preludeFor } from './lua/prelude.lua.js';
import {
  ACCESS,
  CREATE,
  END,
  EXPIRE,
  RATE_HIT,
  RESERVE,
  SUBSCRIBE,
  TOUCH,
  UNSUBSCRIBE,
  UPDATE,
} from './lua/session.lua.js';
import {
  TASK_ADJUST,
  TASK_ANSWER,
  TASK_ASK,
  TASK_CREATE,
  TASK_GET,
  TASK_LIST,
  TASK_OWN,
  TASK_REAP,
  TASK_RESERVE,
  TASK_SETTLE,
  TASK_SETTLE_INSTANCE,
  TASK_STATUS_MESSAGE,
  TASK_TAKE_ANSWERS,
  TASK_WITHDRAW,
} from './lua/tasks.lua.js';
import { guarded } from './redis-errors.js';

const SCRIPTS = {
  mcpReserve: RESERVE,
  mcpCreate: CREATE,
  mcpAccess: ACCESS,
  mcpUpdate: UPDATE,
  mcpTouch: TOUCH,
  mcpExpire: EXPIRE,
  mcpEnd: END,
  mcpSubscribe: SUBSCRIBE,
  mcpUnsubscribe: UNSUBSCRIBE,
  mcpRateHit: RATE_HIT,
  mcpFanout: FANOUT,
  mcpSend: SEND,
  mcpAttach: ATTACH,
  mcpLogRead: LOG_READ,
  mcpResync: RESYNC,
  mcpDetach: DETACH,
  mcpHeartbeat: HEARTBEAT,
  mcpBeat: BEAT,
  mcpDeadInstances: DEAD_INSTANCES,
  mcpRecentlyGone: RECENTLY_GONE,
  mcpHeldSubscriptions: HELD_SUBSCRIPTIONS,
  mcpPostOpen: POST_OPEN,
  mcpPostAppend: POST_APPEND,
  mcpPostFinish: POST_FINISH,
  mcpPostResume: POST_RESUME,
  mcpTaskReserve: TASK_RESERVE,
  mcpTaskAdjust: TASK_ADJUST,
  mcpTaskCreate: TASK_CREATE,
  mcpTaskOwn: TASK_OWN,
  mcpTaskGet: TASK_GET,
  mcpTaskStatusMessage: TASK_STATUS_MESSAGE,
  mcpTaskAsk: TASK_ASK,
  mcpTaskAnswer: TASK_ANSWER,
  mcpTaskTakeAnswers: TASK_TAKE_ANSWERS,
  mcpTaskWithdraw: TASK_WITHDRAW,
  mcpTaskSettle: TASK_SETTLE,
  mcpTaskList: TASK_LIST,
  mcpTaskSettleInstance: TASK_SETTLE_INSTANCE,
  mcpTaskReap: TASK_REAP,
} as const;

/** The name of one of the backend's Lua scripts. */
export type ScriptName = keyof typeof SCRIPTS;

type ScriptClient = Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;

/** The command connection: one Redis, or a Redis Cluster (the same commands, routed by key). */
export type RedisClient = Redis | Cluster;

/**
 * The backend's Lua scripts on one connection (`defineCommand`: EVALSHA, with EVAL after a
 * Redis restart emptied the script cache). Each call declares its keys (`KEYS[]`: the first
 * names the slot it works in, which a Redis Cluster routes it by; every other key it touches
 * carries the same hash tag), passes the key prefix and this instance's id first, runs in one
 * round trip and is atomic; failures are mapped by `guarded`.
 */
export class RedisScripts {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly instanceId: string,
    /** Whether the scripts publish with SPUBLISH (a cluster's sharded channels) or PUBLISH. */
    sharded = false,
  ) {
    const prelude = preludeFor(sharded);
    // No fixed number of keys: each call says how many it declares.
    for (const [name, body] of Object.entries(SCRIPTS)) redis.defineCommand(name, { lua: prelude + body });
  }

  run<T = unknown>(name: ScriptName, keys: readonly string[], ...args: (string | number)[]): Promise<T> {
    const client = this.redis as unknown as ScriptClient;
    return guarded(client[name](keys.length, ...keys, this.prefix, this.instanceId, ...args) as Promise<T>);
  }
}
