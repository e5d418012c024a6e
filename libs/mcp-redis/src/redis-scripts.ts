import type { Redis } from 'ioredis';
import { ATTACH, DETACH, FANOUT, HEARTBEAT, HELD_SUBSCRIPTIONS, SEND } from './lua/delivery.lua.js';
import { POST_APPEND, POST_FINISH, POST_OPEN, POST_RESUME } from './lua/post-stream.lua.js';
import { PRELUDE } from './lua/prelude.lua.js';
import { ACCESS, CREATE, END, EXPIRE, RATE_HIT, SUBSCRIBE, TOUCH, UNSUBSCRIBE, UPDATE } from './lua/session.lua.js';
import {
  TASK_ANSWER,
  TASK_ASK,
  TASK_CREATE,
  TASK_GET,
  TASK_LIST,
  TASK_REAP,
  TASK_SETTLE,
  TASK_SETTLE_INSTANCE,
  TASK_STATUS_MESSAGE,
  TASK_TAKE_ANSWERS,
  TASK_WITHDRAW,
} from './lua/tasks.lua.js';
import { guarded } from './redis-errors.js';

const SCRIPTS = {
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
  mcpDetach: DETACH,
  mcpHeartbeat: HEARTBEAT,
  mcpHeldSubscriptions: HELD_SUBSCRIPTIONS,
  mcpPostOpen: POST_OPEN,
  mcpPostAppend: POST_APPEND,
  mcpPostFinish: POST_FINISH,
  mcpPostResume: POST_RESUME,
  mcpTaskCreate: TASK_CREATE,
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

/**
 * The backend's Lua scripts on one connection (`defineCommand`: EVALSHA, with EVAL after a
 * Redis restart emptied the script cache). Each call passes the key prefix and this instance's
 * id first, runs in one round trip and is atomic; failures are mapped by `guarded`.
 */
export class RedisScripts {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly instanceId: string,
  ) {
    for (const [name, body] of Object.entries(SCRIPTS))
      redis.defineCommand(name, { numberOfKeys: 0, lua: PRELUDE + body });
  }

  run<T = unknown>(name: ScriptName, ...args: (string | number)[]): Promise<T> {
    const client = this.redis as unknown as ScriptClient;
    return guarded(client[name](this.prefix, this.instanceId, ...args) as Promise<T>);
  }
}
