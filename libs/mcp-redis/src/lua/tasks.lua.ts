import { ORPHANED_TASK, RESULT_NOT_KEPT } from '@nest-mcp/server/backend';

/**
 * Scripts of the task store, run through the backend's script registry (`RedisScripts`: the
 * shared prelude, `ARGV[1]` = key prefix, `ARGV[2]` = the calling instance, then their own;
 * `KEYS[1]` = `{t}`, the store's anchor). Each runs in one round trip and is atomic. Every key
 * of the store carries the hash tag `{t}`: on a Redis Cluster the whole store is one slot, so
 * that the budgets (per caller and for everyone) are checked and taken in the step that creates,
 * and an end frees them in the step that ends (see docs/several-instances.md for what that
 * costs). A task is the hash `{t}:t:<id>`:
 *
 * | field | content |
 * |---|---|
 * | `b` | what never changes, as JSON (id, owner, caller, scopes, instance, era, session, createdAt, ttl, poll interval) |
 * | `s`, `sm`, `u` | status, status message, last update (epoch ms) |
 * | `i`, `c` | the instance running it, the caller whose budget it counts against (`''`: none) |
 * | `x` | its expiry (epoch ms), which its side keys share; brought forward to `rt` after its end |
 * | `z` | the bytes it counts for (its record, then its result or error too) |
 * | `rt`, `mb`, `gb` | its limits: how long it stays once ended, the caller's and the global byte budgets |
 * | `r`, `e` | terminal: the result, or the JSON-RPC error, as JSON |
 *
 * beside `{t}:t:<id>:q` (HASH: outstanding input requests, key → JSON) and `{t}:t:<id>:a` (HASH:
 * answers taken by `tasks/update`, key → JSON). All three expire with the task (PEXPIREAT).
 * JSON written by the core is never decoded here: a request's params go back exactly as they
 * came.
 *
 * Accounts, pruned of tasks whose time to live lapsed as they are used (at most `PRUNE` entries a
 * call): per caller `{t}:tc:<caller>` (ZSET: its stored tasks, score = expiry), `{t}:te:<caller>`
 * (ZSET: those that ended, score = the order they ended in: the first ended are removed first to
 * make room) and `{t}:tb:<caller>` (HASH: id → bytes, `#` = the total, `^` = the count of ends);
 * for everyone, `{t}:all` (ZSET: every stored task, score = expiry) and `{t}:all:b` (HASH: id →
 * bytes, `#` = the total).
 *
 * Indexes: `{t}:to:<owner>` (ZSET: the owner's tasks, score = creation), `{t}:ti:<instance>`
 * (SET: tasks running on it), `{t}:tinst` (SET: instances with running tasks). A task that ended
 * leaves `ti:`; the others are pruned as they are read. An instance's lease `{t}:inst:<id>` (and
 * the heartbeats' `{t}:clock` and `{t}:grace`, see `instanceGone` in lua/prelude) is in the same
 * slot, so a read finds a dead instance's task in one step.
 */
const PRELUDE = `
local TERMINAL = { completed = true, failed = true, cancelled = true }
local ORPHAN_MESSAGE = ${luaString(ORPHANED_TASK.statusMessage!)}
local ORPHAN_ERROR = ${luaString(JSON.stringify(ORPHANED_TASK.error))}
local NOT_KEPT = ${luaString(RESULT_NOT_KEPT)}
-- Expired entries an account forgets, at most, per call (the rest at the next calls).
local PRUNE = 64
local GALL = P .. '{t}:all'
local GBYTES = P .. '{t}:all:b'
local function tkey(id) return P .. '{t}:t:' .. id end
local function ckey(kind, caller) return P .. '{t}:' .. kind .. ':' .. caller end

-- Forgets a task in its caller's account (the task itself may be gone already).
local function forgetCaller(id, caller)
  if caller == '' then return end
  local bytes = ckey('tb', caller)
  local size = tonumber(redis.call('HGET', bytes, id) or '0')
  if size ~= 0 then redis.call('HINCRBY', bytes, '#', -size) end
  redis.call('HDEL', bytes, id)
  redis.call('ZREM', ckey('tc', caller), id)
  redis.call('ZREM', ckey('te', caller), id)
end

-- Forgets a task in the global account.
local function forgetGlobal(id)
  local size = tonumber(redis.call('HGET', GBYTES, id) or '0')
  if size ~= 0 then redis.call('HINCRBY', GBYTES, '#', -size) end
  redis.call('HDEL', GBYTES, id)
  redis.call('ZREM', GALL, id)
end

local function pruneCaller(caller, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', ckey('tc', caller), '-inf', now, 'LIMIT', 0, PRUNE)) do
    forgetCaller(id, caller)
  end
end

local function pruneGlobal(now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', GALL, '-inf', now, 'LIMIT', 0, PRUNE)) do forgetGlobal(id) end
end

local function callerBytes(caller) return tonumber(redis.call('HGET', ckey('tb', caller), '#') or '0') end
local function globalBytes() return tonumber(redis.call('HGET', GBYTES, '#') or '0') end

-- Removes the oldest ended task of a caller (gone everywhere); false when it has none.
local function evictOldestEnded(caller)
  if caller == '' then return false end
  local oldest = redis.call('ZRANGE', ckey('te', caller), 0, 0)[1]
  if not oldest then return false end
  local key = tkey(oldest)
  redis.call('DEL', key, key .. ':q', key .. ':a')
  forgetCaller(oldest, caller)
  forgetGlobal(oldest)
  return true
end

-- Adds bytes to a task and to its accounts.
local function count(key, id, caller, size)
  if size == 0 then return end
  redis.call('HINCRBY', key, 'z', size)
  if caller ~= '' then
    redis.call('HINCRBY', ckey('tb', caller), id, size)
    redis.call('HINCRBY', ckey('tb', caller), '#', size)
  end
  redis.call('HINCRBY', GBYTES, id, size)
  redis.call('HINCRBY', GBYTES, '#', size)
end

-- Keeps an index at least until at (epoch ms), now being now (PTTL: Redis 6.2 has no PEXPIRETIME).
local function keepUntil(index, at, now)
  local ttl = redis.call('PTTL', index)
  if ttl < 0 or now + ttl < at then redis.call('PEXPIREAT', index, at) end
end

-- A task that ended: its instance's set no longer holds it, nor its side keys anything.
local function release(key, id)
  local instance = redis.call('HGET', key, 'i')
  if instance then redis.call('SREM', P .. '{t}:ti:' .. instance, id) end
  redis.call('DEL', key .. ':q', key .. ':a')
end

-- Ends a task. Its result or error is kept only if it fits the byte budgets of the task's limits
-- once the caller's oldest ended tasks made room (never another caller's): else the task fails
-- saying so. From now it stays at most rt more.
local function settle(key, id, status, message, now, result, err)
  local caller = redis.call('HGET', key, 'c') or ''
  local maxCaller = tonumber(redis.call('HGET', key, 'mb') or '') or math.huge
  local maxGlobal = tonumber(redis.call('HGET', key, 'gb') or '') or math.huge
  local size = #message + #result + #err
  local function fits()
    return globalBytes() + size <= maxGlobal and (caller == '' or callerBytes(caller) + size <= maxCaller)
  end
  -- Larger than a whole budget: nothing the caller holds is removed for a result that cannot fit.
  local hopeless = size > maxCaller or size > maxGlobal
  while not fits() do
    if hopeless or not evictOldestEnded(caller) then
      status, result = 'failed', ''
      message = NOT_KEPT
      err = cjson.encode({ code = -32603, message = 'Internal error', data = { detail = NOT_KEPT .. ' (' .. size .. ' bytes)' } })
      size = #message + #err
      break
    end
  end
  redis.call('HSET', key, 's', status, 'u', now)
  if message ~= '' then redis.call('HSET', key, 'sm', message) end
  if result ~= '' then redis.call('HSET', key, 'r', result) end
  if err ~= '' then redis.call('HSET', key, 'e', err) end
  count(key, id, caller, size)
  local at = tonumber(redis.call('HGET', key, 'x'))
  local resultTtl = tonumber(redis.call('HGET', key, 'rt') or '')
  if resultTtl then at = math.min(at, now + resultTtl) end
  redis.call('HSET', key, 'x', at)
  redis.call('PEXPIREAT', key, at)
  redis.call('ZADD', GALL, 'XX', at, id)
  if caller ~= '' then
    redis.call('ZADD', ckey('tc', caller), 'XX', at, id)
    -- In the order they ended (a counter: two ends in one millisecond keep their order).
    redis.call('ZADD', ckey('te', caller), redis.call('HINCRBY', ckey('tb', caller), '^', 1), id)
    keepUntil(ckey('te', caller), at, now)
  end
  release(key, id)
end

-- The status of a task that exists (false otherwise); one whose instance is gone is failed first.
local function live(key, id, now)
  local status = redis.call('HGET', key, 's')
  if not status then return false end
  if TERMINAL[status] then return status end
  if instanceGone(redis.call('HGET', key, 'i')) then
    settle(key, id, 'failed', ORPHAN_MESSAGE, now, '', ORPHAN_ERROR)
    return 'failed'
  end
  return status
end

-- The status of a task that exists and has not ended (false otherwise).
local function running(key, id, now)
  local status = live(key, id, now)
  if not status or TERMINAL[status] then return false end
  return status
end

-- Keeps a side key of the task as long as the task (its expiry is the field x).
local function expireWith(key, side)
  local at = tonumber(redis.call('HGET', key, 'x'))
  if at then redis.call('PEXPIREAT', side, at) end
end

-- With no request outstanding, an input_required task works again.
local function resumeIfAnswered(key)
  if redis.call('HLEN', key .. ':q') == 0 and redis.call('HGET', key, 's') == 'input_required' then
    redis.call('HSET', key, 's', 'working')
  end
end
`;

/**
 * ARGV: id, base JSON, caller ('' for none), instance, owner, createdAt, expiresAt, now, status
 * message ('' for none), then the limits: max tasks per caller, max bytes per caller, max tasks
 * stored, max bytes stored, result ttl ms → 1 created | 0 the caller's budget is full of running
 * tasks | 2 the store is full. What does not fit first removes the caller's oldest ended tasks.
 */
export const TASK_CREATE =
  PRELUDE +
  `
local id, base, caller, instance, owner = ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local createdAt, expiresAt, now, message = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), ARGV[11]
local maxPerCaller, maxBytesPerCaller = tonumber(ARGV[12]), tonumber(ARGV[13])
local maxStored, maxStoredBytes, resultTtl = tonumber(ARGV[14]), tonumber(ARGV[15]), ARGV[16]
local size = #base + #message
pruneGlobal(now)
if caller ~= '' then
  pruneCaller(caller, now)
  while redis.call('ZCARD', ckey('tc', caller)) >= maxPerCaller or callerBytes(caller) + size > maxBytesPerCaller do
    if not evictOldestEnded(caller) then return 0 end
  end
end
while redis.call('ZCARD', GALL) >= maxStored or globalBytes() + size > maxStoredBytes do
  if not evictOldestEnded(caller) then return 2 end
end
local key = tkey(id)
redis.call('HSET', key, 'b', base, 's', 'working', 'u', now, 'i', instance, 'c', caller, 'x', expiresAt,
  'rt', resultTtl, 'mb', maxBytesPerCaller, 'gb', maxStoredBytes)
if message ~= '' then redis.call('HSET', key, 'sm', message) end
redis.call('PEXPIREAT', key, expiresAt)
redis.call('ZADD', GALL, expiresAt, id)
count(key, id, caller, size)
if caller ~= '' then
  redis.call('ZADD', ckey('tc', caller), expiresAt, id)
  keepUntil(ckey('tc', caller), expiresAt, now)
  keepUntil(ckey('tb', caller), expiresAt, now)
end
local owned = P .. '{t}:to:' .. owner
-- The oldest entries of a task that is gone leave the owner's index as new ones come.
for _, old in ipairs(redis.call('ZRANGE', owned, 0, 7)) do
  if redis.call('EXISTS', tkey(old)) == 0 then redis.call('ZREM', owned, old) end
end
redis.call('ZADD', owned, createdAt, id)
keepUntil(owned, expiresAt, now)
redis.call('SADD', P .. '{t}:ti:' .. instance, id)
redis.call('SADD', P .. '{t}:tinst', instance)
return 1
`;

/**
 * ARGV: id, now, '1' to read the result ('0': left out, a poll of the status costs the same
 * whatever its size) → false | { b, s, sm, u, r, e, x, q1 key, q1 JSON, ... } ('' for an absent field).
 */
export const TASK_GET =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
if not live(key, id, now) then return false end
local f = redis.call('HMGET', key, 'b', 's', 'sm', 'u', 'e', 'x')
local result = ''
if ARGV[5] == '1' then result = redis.call('HGET', key, 'r') or '' end
local out = { f[1], f[2], f[3] or '', f[4], result, f[5] or '', f[6] }
for _, v in ipairs(redis.call('HGETALL', key .. ':q')) do out[#out + 1] = v end
return out
`;

/** ARGV: id, message, now → 1 | 0. */
export const TASK_STATUS_MESSAGE =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[5])
local key = tkey(id)
if not running(key, id, now) then return 0 end
redis.call('HSET', key, 'sm', ARGV[4], 'u', now)
return 1
`;

/** ARGV: id, now, key1, JSON1, ... → 1 | 0 (only keys not outstanding are added). */
export const TASK_ASK =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
if not running(key, id, now) then return 0 end
local added = 0
for n = 5, #ARGV, 2 do added = added + redis.call('HSETNX', key .. ':q', ARGV[n], ARGV[n + 1]) end
if added == 0 then return 0 end
expireWith(key, key .. ':q')
redis.call('HSET', key, 's', 'input_required', 'u', now)
return 1
`;

/** ARGV: id, now, key1, JSON1, ... → the keys taken. */
export const TASK_ANSWER =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
local taken = {}
if not running(key, id, now) then return taken end
for n = 5, #ARGV, 2 do
  if redis.call('HDEL', key .. ':q', ARGV[n]) == 1 then
    redis.call('HSET', key .. ':a', ARGV[n], ARGV[n + 1])
    taken[#taken + 1] = ARGV[n]
  end
end
if #taken == 0 then return taken end
expireWith(key, key .. ':a')
redis.call('HSET', key, 'u', now)
resumeIfAnswered(key)
return taken
`;

/** ARGV: id → key1, JSON1, ... (and they are gone). */
export const TASK_TAKE_ANSWERS =
  PRELUDE +
  `
local answers = tkey(ARGV[3]) .. ':a'
local all = redis.call('HGETALL', answers)
redis.call('DEL', answers)
return all
`;

/** ARGV: id, now, keys... → 1 | 0. */
export const TASK_WITHDRAW =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
if not running(key, id, now) then return 0 end
for n = 5, #ARGV do redis.call('HDEL', key .. ':q', ARGV[n]) end
redis.call('HSET', key, 'u', now)
resumeIfAnswered(key)
return 1
`;

/** ARGV: id, status, message, now, result JSON, error JSON ('' for none) → the status before, or false. */
export const TASK_SETTLE =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[6])
local key = tkey(id)
local before = live(key, id, now)
if not before or TERMINAL[before] then return before end
settle(key, id, ARGV[4], ARGV[5], now, ARGV[7], ARGV[8])
return before
`;

/** ARGV: owner, cursor ('' for the first page), limit → { more (0|1), id... }, or { 'cursor' } for an unknown cursor. */
export const TASK_LIST =
  PRELUDE +
  `
local owned, limit = P .. '{t}:to:' .. ARGV[3], tonumber(ARGV[5])
local start = 0
if ARGV[4] ~= '' then
  local rank = redis.call('ZRANK', owned, ARGV[4])
  if not rank then return { 'cursor' } end
  start = rank + 1
end
local ids, more = {}, 0
-- Bounded: entries of tasks that are gone are dropped as they are met, at most 4 pages of them.
local candidates = redis.call('ZRANGE', owned, start, start + 4 * limit)
for _, id in ipairs(candidates) do
  if redis.call('EXISTS', tkey(id)) == 0 then
    redis.call('ZREM', owned, id)
  elseif #ids == limit then
    more = 1
    break
  else
    ids[#ids + 1] = id
  end
end
if more == 0 and #candidates > 4 * limit then more = 1 end
local out = { more }
for _, id in ipairs(ids) do out[#out + 1] = id end
return out
`;

/** ARGV: instance, status, message, now, result JSON, error JSON → the ids settled. */
export const TASK_SETTLE_INSTANCE =
  PRELUDE +
  `
local instance, now = ARGV[3], tonumber(ARGV[6])
local settled = {}
for _, id in ipairs(redis.call('SMEMBERS', P .. '{t}:ti:' .. instance)) do
  local key = tkey(id)
  local status = redis.call('HGET', key, 's')
  if status and not TERMINAL[status] then
    settle(key, id, ARGV[4], ARGV[5], now, ARGV[7], ARGV[8])
    settled[#settled + 1] = id
  end
end
redis.call('DEL', P .. '{t}:ti:' .. instance)
redis.call('SREM', P .. '{t}:tinst', instance)
return settled
`;

/** ARGV: now, at most how many tasks to fail → the ids failed (their instances' liveness lapsed). */
export const TASK_REAP =
  PRELUDE +
  `
local now, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
local failed = {}
for _, instance in ipairs(redis.call('SMEMBERS', P .. '{t}:tinst')) do
  local tasks = P .. '{t}:ti:' .. instance
  if redis.call('SCARD', tasks) == 0 then
    redis.call('SREM', P .. '{t}:tinst', instance)
  elseif instanceGone(instance) then
    for _, id in ipairs(redis.call('SRANDMEMBER', tasks, budget - #failed)) do
      local key = tkey(id)
      local status = redis.call('HGET', key, 's')
      if status and not TERMINAL[status] then
        settle(key, id, 'failed', ORPHAN_MESSAGE, now, '', ORPHAN_ERROR)
        failed[#failed + 1] = id
      else
        redis.call('SREM', tasks, id)
      end
    end
  end
  if #failed >= budget then break end
end
return failed
`;

/** A Lua string literal of an ASCII text (JSON's escapes are Lua's for it). */
function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error('Only printable ASCII is embedded in the task scripts');
  return JSON.stringify(text);
}
