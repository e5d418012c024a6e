import { ORPHANED_TASK, RESULT_NOT_KEPT } from '@nest-mcp/server/backend';

/**
 * Scripts of the task store, run through the backend's script registry (`RedisScripts`: the
 * shared prelude, `ARGV[1]` = key prefix, `ARGV[2]` = the calling instance, then their own;
 * `KEYS[1]` = `{t}`, the store's anchor). Each runs in one round trip and is atomic.
 *
 * On a Redis Cluster a script declares every key it touches (`KEYS`), so that the cluster checks
 * them all before it runs (while `{t}` migrates: ASK to the node that has them all, or TRYAGAIN
 * while they are split) instead of stopping it half way at a key the node gave away: `call`
 * refuses a key that is not declared. The keys a script finds only by reading others (the
 * caller's accounts of a task, the tasks an eviction removes, the tasks of an index) it asks
 * for first: before writing anything that depends on them it answers `{ -1, n, key1..keyn,
 * partial result... }`, and the store runs it again with them declared (see
 * redis-task.store.ts); a script that ended tasks before asking returns those ended so far. Every key
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
 * make room, never while a step that needs the room cannot have it all) and `{t}:tb:<caller>` (HASH: id → bytes, `#` = the total, `^` = the count of ends);
 * for everyone, `{t}:all` (ZSET: every stored task, score = expiry) and `{t}:all:b` (HASH: id →
 * bytes, `#` = the total).
 *
 * Indexes: `{t}:to:<owner>` (ZSET: the owner's tasks, score = creation) with `{t}:tox:<owner>`
 * (ZSET: the same tasks, score = the expiry they were created with: the entries of tasks gone
 * leave both as new ones come), `{t}:run` (ZSET, all scores 0: `<instance> <id>` for each task
 * running, read by lexical range per instance), `{t}:tinst` (SET: instances with running tasks).
 * A task that ended leaves `{t}:run`; the others are pruned as they are read. The instances'
 * leases `{t}:leases` (and the heartbeats' `{t}:clock` and `{t}:grace`, see `instanceGone` in
 * lua/prelude) are in the same slot, so a read finds a dead instance's task in one step.
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
local RUNNING = P .. '{t}:run'
local INSTANCES = P .. '{t}:tinst'
local function tkey(id) return P .. '{t}:t:' .. id end
local function ckey(kind, caller) return P .. '{t}:' .. kind .. ':' .. caller end
-- The lexical range of an instance's entries in RUNNING (instance ids hold no space).
local function runningOf(instance) return '[' .. instance .. ' ', '(' .. instance .. '!' end

-- On a cluster, every key touched must be declared: a key found by reading another is asked for
-- (want, then asking) before the step that touches it, and call stops a script that touches one
-- not declared (a bug: the cluster could not have checked it before the script ran).
local DECLARED = {}
for _, declared in ipairs(KEYS) do DECLARED[declared] = true end
local call = redis.call
if CLUSTERED then
  call = function(command, ...)
    local args = { ... }
    local last = (command == 'DEL' or command == 'EXISTS') and #args or 1
    for n = 1, last do
      if not DECLARED[args[n]] then error('task script touched an undeclared key: ' .. tostring(args[n])) end
    end
    return redis.call(command, ...)
  end
end
local MISSING, WANTED = {}, {}
local function want(key)
  if CLUSTERED and not DECLARED[key] and not WANTED[key] then
    WANTED[key] = true
    MISSING[#MISSING + 1] = key
  end
end
local function wantTask(id)
  local key = tkey(id)
  want(key)
  want(key .. ':q')
  want(key .. ':a')
end
local function wantCaller(caller)
  if caller == '' then return end
  want(ckey('tc', caller))
  want(ckey('te', caller))
  want(ckey('tb', caller))
end
local function ready() return #MISSING == 0 end
-- The reply asking for the keys wanted and not declared, then what the script did so far.
local function asking(partial)
  local out = { -1, #MISSING }
  for _, key in ipairs(MISSING) do out[#out + 1] = key end
  for _, v in ipairs(partial or {}) do out[#out + 1] = v end
  return out
end

-- Forgets a task in its caller's account (the task itself may be gone already).
local function forgetCaller(id, caller)
  if caller == '' then return end
  local bytes = ckey('tb', caller)
  local size = tonumber(call('HGET', bytes, id) or '0')
  if size ~= 0 then call('HINCRBY', bytes, '#', -size) end
  call('HDEL', bytes, id)
  call('ZREM', ckey('tc', caller), id)
  call('ZREM', ckey('te', caller), id)
end

-- Forgets a task in the global account.
local function forgetGlobal(id)
  local size = tonumber(call('HGET', GBYTES, id) or '0')
  if size ~= 0 then call('HINCRBY', GBYTES, '#', -size) end
  call('HDEL', GBYTES, id)
  call('ZREM', GALL, id)
end

local function pruneCaller(caller, now)
  for _, id in ipairs(call('ZRANGEBYSCORE', ckey('tc', caller), '-inf', now, 'LIMIT', 0, PRUNE)) do
    forgetCaller(id, caller)
  end
end

local function pruneGlobal(now)
  for _, id in ipairs(call('ZRANGEBYSCORE', GALL, '-inf', now, 'LIMIT', 0, PRUNE)) do forgetGlobal(id) end
end

local function callerBytes(caller) return tonumber(call('HGET', ckey('tb', caller), '#') or '0') end
local function globalBytes() return tonumber(call('HGET', GBYTES, '#') or '0') end

-- What a caller (none: '') and everyone hold now: tasks (cn, gn) and bytes (cb, gb).
local function holdings(caller)
  local held = { cn = 0, cb = 0, gn = call('ZCARD', GALL), gb = globalBytes() }
  if caller ~= '' then
    held.cn = call('ZCARD', ckey('tc', caller))
    held.cb = callerBytes(caller)
  end
  return held
end

-- Plans room: the caller's oldest ended tasks (after those in ids already) whose removal makes
-- fits(held) true, appended to ids, held updated as if they were gone; nil when removing all of
-- them does not (then nothing is removed). Reads only; evict removes them.
local function planRoom(caller, held, fits, ids)
  if fits(held) then return ids end
  if caller == '' then return nil end
  local ended, stored, bytes = ckey('te', caller), ckey('tc', caller), ckey('tb', caller)
  while true do
    local batch = call('ZRANGE', ended, #ids, #ids + 63)
    if #batch == 0 then return nil end
    for _, id in ipairs(batch) do
      ids[#ids + 1] = id
      if call('ZSCORE', stored, id) then held.cn = held.cn - 1 end
      held.cb = held.cb - tonumber(call('HGET', bytes, id) or '0')
      if call('ZSCORE', GALL, id) then held.gn = held.gn - 1 end
      held.gb = held.gb - tonumber(call('HGET', GBYTES, id) or '0')
      if fits(held) then return ids end
    end
  end
end

-- Removes the caller's ended tasks planned by planRoom (gone everywhere).
local function evict(ids, caller)
  for _, id in ipairs(ids) do
    local key = tkey(id)
    call('DEL', key, key .. ':q', key .. ':a')
    forgetCaller(id, caller)
    forgetGlobal(id)
  end
end

-- Adds bytes to a task and to its accounts.
local function count(key, id, caller, size)
  if size == 0 then return end
  call('HINCRBY', key, 'z', size)
  if caller ~= '' then
    call('HINCRBY', ckey('tb', caller), id, size)
    call('HINCRBY', ckey('tb', caller), '#', size)
  end
  call('HINCRBY', GBYTES, id, size)
  call('HINCRBY', GBYTES, '#', size)
end

-- Keeps an index at least until at (epoch ms), now being now (PTTL: Redis 6.2 has no PEXPIRETIME).
local function keepUntil(index, at, now)
  local ttl = call('PTTL', index)
  if ttl < 0 or now + ttl < at then call('PEXPIREAT', index, at) end
end

-- A task that ended: its instance's entry no longer lists it, nor its side keys hold anything.
local function release(key, id)
  local instance = call('HGET', key, 'i')
  if instance then call('ZREM', RUNNING, instance .. ' ' .. id) end
  call('DEL', key .. ':q', key .. ':a')
end

-- Plans the end of a task whose record, result and error take size bytes: the caller's oldest
-- ended tasks to remove to make room (never another caller's), or false when it cannot be kept
-- (larger than a whole budget: nothing the caller holds is removed for it; or more than all the
-- caller's ended tasks free). nil while keys it needs are not declared (see asking).
local function planEnd(key, size)
  local caller = call('HGET', key, 'c') or ''
  wantCaller(caller)
  if not ready() then return nil end
  local maxCaller = tonumber(call('HGET', key, 'mb') or '') or math.huge
  local maxGlobal = tonumber(call('HGET', key, 'gb') or '') or math.huge
  if size > maxGlobal or (caller ~= '' and size > maxCaller) then return false end
  local ids = planRoom(caller, holdings(caller), function(held)
    return held.gb + size <= maxGlobal and (caller == '' or held.cb + size <= maxCaller)
  end, {})
  if not ids then return false end
  for _, id in ipairs(ids) do wantTask(id) end
  if not ready() then return nil end
  return ids
end

-- Ends a task, as planned by planEnd: its result or error is kept if room was found, else the task
-- fails saying so. From now it stays at most rt more.
local function settle(key, id, status, message, now, result, err, room)
  local caller = call('HGET', key, 'c') or ''
  local size = #message + #result + #err
  if room then
    evict(room, caller)
  else
    status, result = 'failed', ''
    message = NOT_KEPT
    err = cjson.encode({ code = -32603, message = 'Internal error', data = { detail = NOT_KEPT .. ' (' .. size .. ' bytes)' } })
    size = #message + #err
  end
  call('HSET', key, 's', status, 'u', now)
  if message ~= '' then call('HSET', key, 'sm', message) end
  if result ~= '' then call('HSET', key, 'r', result) end
  if err ~= '' then call('HSET', key, 'e', err) end
  count(key, id, caller, size)
  local at = tonumber(call('HGET', key, 'x'))
  local resultTtl = tonumber(call('HGET', key, 'rt') or '')
  if resultTtl then at = math.min(at, now + resultTtl) end
  call('HSET', key, 'x', at)
  call('PEXPIREAT', key, at)
  call('ZADD', GALL, 'XX', at, id)
  if caller ~= '' then
    call('ZADD', ckey('tc', caller), 'XX', at, id)
    -- In the order they ended (a counter: two ends in one millisecond keep their order).
    call('ZADD', ckey('te', caller), call('HINCRBY', ckey('tb', caller), '^', 1), id)
    keepUntil(ckey('te', caller), at, now)
  end
  release(key, id)
end

-- Ends a task once every key it takes is declared: false (nothing done) while some are not.
local function ends(key, id, status, message, now, result, err)
  local room = planEnd(key, #message + #result + #err)
  if room == nil then return false end
  settle(key, id, status, message, now, result, err, room)
  return true
end

-- The status of a task that exists (false otherwise; '?' while keys its end needs are not
-- declared); one whose instance is gone is failed first.
local function live(key, id, now)
  local status = call('HGET', key, 's')
  if not status then return false end
  if TERMINAL[status] then return status end
  if instanceGone(call('HGET', key, 'i')) then
    if not ends(key, id, 'failed', ORPHAN_MESSAGE, now, '', ORPHAN_ERROR) then return '?' end
    return 'failed'
  end
  return status
end

-- The status of a task that exists and has not ended (false otherwise, '?' as live).
local function running(key, id, now)
  local status = live(key, id, now)
  if status == '?' then return status end
  if not status or TERMINAL[status] then return false end
  return status
end

-- Keeps a side key of the task as long as the task (its expiry is the field x).
local function expireWith(key, side)
  local at = tonumber(call('HGET', key, 'x'))
  if at then call('PEXPIREAT', side, at) end
end

-- With no request outstanding, an input_required task works again.
local function resumeIfAnswered(key)
  if call('HLEN', key .. ':q') == 0 and call('HGET', key, 's') == 'input_required' then
    call('HSET', key, 's', 'working')
  end
end

-- Ends the tasks of entries of RUNNING (as settle, with the given end), in three steps that each
-- ask first for the keys they need: the tasks', their callers' accounts, the room their ends take.
-- Entries of tasks that ended or are gone leave RUNNING. Returns the ids ended, or asking(those
-- ended so far).
local function settleAll(entries, status, message, now, result, err)
  local ids = {}
  for n, entry in ipairs(entries) do
    ids[n] = string.sub(entry, string.find(entry, ' ', 1, true) + 1)
    wantTask(ids[n])
  end
  if not ready() then return asking() end
  for _, id in ipairs(ids) do
    local current = call('HGET', tkey(id), 's')
    if current and not TERMINAL[current] then wantCaller(call('HGET', tkey(id), 'c') or '') end
  end
  if not ready() then return asking() end
  local settled = {}
  for n, id in ipairs(ids) do
    local key = tkey(id)
    local current = call('HGET', key, 's')
    if current and not TERMINAL[current] then
      if not ends(key, id, status, message, now, result, err) then return asking(settled) end
      settled[#settled + 1] = id
    else
      call('ZREM', RUNNING, entries[n])
    end
  end
  return settled
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
local owned, ownedUntil = P .. '{t}:to:' .. owner, P .. '{t}:tox:' .. owner
wantCaller(caller)
want(owned)
want(ownedUntil)
if not ready() then return asking() end
pruneGlobal(now)
if caller ~= '' then pruneCaller(caller, now) end
local held = holdings(caller)
local room = {}
if caller ~= '' then
  room = planRoom(caller, held, function(h) return h.cn < maxPerCaller and h.cb + size <= maxBytesPerCaller end, room)
  if not room then return 0 end
end
room = planRoom(caller, held, function(h) return h.gn < maxStored and h.gb + size <= maxStoredBytes end, room)
if not room then return 2 end
for _, old in ipairs(room) do wantTask(old) end
if not ready() then return asking() end
evict(room, caller)
local key = tkey(id)
call('HSET', key, 'b', base, 's', 'working', 'u', now, 'i', instance, 'c', caller, 'x', expiresAt,
  'rt', resultTtl, 'mb', maxBytesPerCaller, 'gb', maxStoredBytes)
if message ~= '' then call('HSET', key, 'sm', message) end
call('PEXPIREAT', key, expiresAt)
call('ZADD', GALL, expiresAt, id)
count(key, id, caller, size)
if caller ~= '' then
  call('ZADD', ckey('tc', caller), expiresAt, id)
  keepUntil(ckey('tc', caller), expiresAt, now)
  keepUntil(ckey('tb', caller), expiresAt, now)
end
-- The entries of tasks whose time to live lapsed leave the owner's index as new ones come.
for _, old in ipairs(call('ZRANGEBYSCORE', ownedUntil, '-inf', now, 'LIMIT', 0, 8)) do
  call('ZREM', owned, old)
  call('ZREM', ownedUntil, old)
end
call('ZADD', owned, createdAt, id)
call('ZADD', ownedUntil, expiresAt, id)
keepUntil(owned, expiresAt, now)
keepUntil(ownedUntil, expiresAt, now)
call('ZADD', RUNNING, 0, instance .. ' ' .. id)
call('SADD', INSTANCES, instance)
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
local status = live(key, id, now)
if status == '?' then return asking() end
if not status then return false end
local f = call('HMGET', key, 'b', 's', 'sm', 'u', 'e', 'x')
local result = ''
if ARGV[5] == '1' then result = call('HGET', key, 'r') or '' end
local out = { f[1], f[2], f[3] or '', f[4], result, f[5] or '', f[6] }
for _, v in ipairs(call('HGETALL', key .. ':q')) do out[#out + 1] = v end
return out
`;

/** ARGV: id, message, now → 1 | 0. */
export const TASK_STATUS_MESSAGE =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[5])
local key = tkey(id)
local status = running(key, id, now)
if status == '?' then return asking() end
if not status then return 0 end
call('HSET', key, 'sm', ARGV[4], 'u', now)
return 1
`;

/** ARGV: id, now, key1, JSON1, ... → 1 | 0 (only keys not outstanding are added). */
export const TASK_ASK =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
local status = running(key, id, now)
if status == '?' then return asking() end
if not status then return 0 end
local added = 0
for n = 5, #ARGV, 2 do added = added + call('HSETNX', key .. ':q', ARGV[n], ARGV[n + 1]) end
if added == 0 then return 0 end
expireWith(key, key .. ':q')
call('HSET', key, 's', 'input_required', 'u', now)
return 1
`;

/** ARGV: id, now, key1, JSON1, ... → the keys taken. */
export const TASK_ANSWER =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
local taken = {}
local status = running(key, id, now)
if status == '?' then return asking() end
if not status then return taken end
for n = 5, #ARGV, 2 do
  if call('HDEL', key .. ':q', ARGV[n]) == 1 then
    call('HSET', key .. ':a', ARGV[n], ARGV[n + 1])
    taken[#taken + 1] = ARGV[n]
  end
end
if #taken == 0 then return taken end
expireWith(key, key .. ':a')
call('HSET', key, 'u', now)
resumeIfAnswered(key)
return taken
`;

/** ARGV: id → key1, JSON1, ... (and they are gone). */
export const TASK_TAKE_ANSWERS =
  PRELUDE +
  `
local answers = tkey(ARGV[3]) .. ':a'
local all = call('HGETALL', answers)
call('DEL', answers)
return all
`;

/** ARGV: id, now, keys... → 1 | 0. */
export const TASK_WITHDRAW =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
local status = running(key, id, now)
if status == '?' then return asking() end
if not status then return 0 end
for n = 5, #ARGV do call('HDEL', key .. ':q', ARGV[n]) end
call('HSET', key, 'u', now)
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
if before == '?' then return asking() end
if not before or TERMINAL[before] then return before end
if not ends(key, id, ARGV[4], ARGV[5], now, ARGV[7], ARGV[8]) then return asking() end
return before
`;

/**
 * ARGV: owner, cursor ('' for the first page), limit → { more (0|1), id... }, or { 'cursor' } for
 * an unknown cursor. KEYS (on a cluster): the owner's indexes, then the keys it asks for (the
 * tasks of the page's candidates).
 */
export const TASK_LIST =
  PRELUDE +
  `
local owned, limit = P .. '{t}:to:' .. ARGV[3], tonumber(ARGV[5])
local ownedUntil = P .. '{t}:tox:' .. ARGV[3]
local start = 0
if ARGV[4] ~= '' then
  local rank = call('ZRANK', owned, ARGV[4])
  if not rank then return { 'cursor' } end
  start = rank + 1
end
local ids, more = {}, 0
-- Bounded: entries of tasks that are gone are dropped as they are met, at most 4 pages of them.
local candidates = call('ZRANGE', owned, start, start + 4 * limit)
for _, id in ipairs(candidates) do want(tkey(id)) end
if not ready() then return asking() end
for _, id in ipairs(candidates) do
  if call('EXISTS', tkey(id)) == 0 then
    call('ZREM', owned, id)
    call('ZREM', ownedUntil, id)
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
local from, to = runningOf(instance)
local settled = settleAll(call('ZRANGEBYLEX', RUNNING, from, to), ARGV[4], ARGV[5], now, ARGV[7], ARGV[8])
if settled[1] == -1 then return settled end
call('SREM', INSTANCES, instance)
return settled
`;

/** ARGV: now, at most how many tasks to fail → the ids failed (their instances' liveness lapsed). */
export const TASK_REAP =
  PRELUDE +
  `
local now, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
local entries = {}
for _, instance in ipairs(call('SMEMBERS', INSTANCES)) do
  local from, to = runningOf(instance)
  if call('ZLEXCOUNT', RUNNING, from, to) == 0 then
    call('SREM', INSTANCES, instance)
  elseif instanceGone(instance) then
    for _, entry in ipairs(call('ZRANGEBYLEX', RUNNING, from, to, 'LIMIT', 0, budget - #entries)) do
      entries[#entries + 1] = entry
    end
  end
  if #entries >= budget then break end
end
return settleAll(entries, 'failed', ORPHAN_MESSAGE, now, '', ORPHAN_ERROR)
`;

/** A Lua string literal of an ASCII text (JSON's escapes are Lua's for it). */
function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error('Only printable ASCII is embedded in the task scripts');
  return JSON.stringify(text);
}
