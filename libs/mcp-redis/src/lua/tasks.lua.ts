import { ORPHANED_TASK, RESULT_NOT_KEPT } from '@nest-mcp/server/backend';

/**
 * Scripts of the task store, run through the backend's script registry (`RedisScripts`: the
 * shared prelude, `ARGV[1]` = key prefix, `ARGV[2]` = the calling instance, then their own;
 * `KEYS[1]` = `{t<n>}`, the anchor of the bucket the script works in). Each runs in one round
 * trip and is atomic.
 *
 * The store is spread over buckets (`{t<n>}`, one slot each on a Redis Cluster; one bucket on a
 * single Redis): a task lives in its caller's bucket (the bucket is in its id, see
 * `RedisKeys.newTaskId`), beside its caller's accounts, so that the caller's budget is checked
 * and taken in the step that creates, and freed in the step that ends. An owner's index lives in
 * the owner's bucket (written by the create when that is the task's bucket, else by a script of
 * its own after it). The global bounds
 * (`tasks.maxStored`, `maxStoredBytes`) are a counter of their own (`tasks`, see TASK_RESERVE):
 * the store takes a place there before a create or an end stores bytes, and gives back what a
 * script reports it freed. Every script that may change what is stored answers
 * `{ 0, dn, db, result... }`: `dn`, `db` = the tasks and bytes its bucket holds more (less, when
 * negative) than before it ran.
 *
 * On a Redis Cluster a script declares every key it touches (`KEYS`), so that the cluster checks
 * them all before it runs (while its slot migrates: ASK to the node that has them all, or
 * TRYAGAIN while they are split) instead of stopping it half way at a key the node gave away:
 * `call` refuses a key that is not declared. The keys a script finds only by reading others (the
 * caller's accounts of a task, the tasks an eviction removes) it asks for first: before writing
 * anything that depends on them it answers `{ -1, dn, db, n, key1..keyn, partial result... }`,
 * and the store runs it again with them declared (see redis-task.store.ts); a script that ended
 * tasks before asking returns those ended so far. A task is the hash `{t<n>}:t:<id>`:
 *
 * | field | content |
 * |---|---|
 * | `b` | what never changes, as JSON (id, owner, caller, scopes, instance, era, session, createdAt, ttl, poll interval) |
 * | `s`, `sm`, `u` | status, status message, last update (epoch ms) |
 * | `i`, `c` | the instance running it, the caller whose budget it counts against (`''`: none) |
 * | `x` | its expiry (epoch ms), which its side keys share; brought forward to `rt` after its end |
 * | `z` | the bytes it counts for (its record, then its result or error too) |
 * | `rt`, `mb` | its limits: how long it stays once ended, the caller's byte budget |
 * | `r`, `e` | terminal: the result, or the JSON-RPC error, as JSON |
 *
 * beside `{t<n>}:t:<id>:q` (HASH: outstanding input requests, key → JSON) and `{t<n>}:t:<id>:a`
 * (HASH: answers taken by `tasks/update`, key → JSON). All three expire with the task
 * (PEXPIREAT). JSON written by the core is never decoded here: a request's params go back exactly
 * as they came.
 *
 * Accounts, pruned of tasks whose time to live lapsed as they are used (at most `PRUNE` entries a
 * call): per caller `{t<n>}:tc:<caller>` (ZSET: its stored tasks, score = expiry),
 * `{t<n>}:te:<caller>` (ZSET: those that ended, score = the order they ended in: the first ended
 * are removed first to make room, never while a step that needs the room cannot have it all) and
 * `{t<n>}:tb:<caller>` (HASH: id → bytes, `#` = the total, `^` = the count of ends); per bucket,
 * `{t<n>}:all` (ZSET: every stored task, score = expiry) and `{t<n>}:all:b` (HASH: id → bytes):
 * what the bucket holds of the global counter, given back as its tasks go.
 *
 * Indexes: `{t<m>}:to:<owner>` (ZSET: the owner's tasks, score = creation) with
 * `{t<m>}:tox:<owner>` (ZSET: the same tasks, score = the expiry they were created with: the
 * entries of tasks gone leave both as new ones come and as pages are read), `{t<n>}:run` (ZSET,
 * all scores 0: `<instance> <id>` for each task running, read by lexical range per instance),
 * `{t<n>}:tinst` (SET: instances with running tasks). A task that ended leaves `{t<n>}:run`; the
 * others are pruned as they are read. The instances' leases are in a slot of their own (see
 * lua/liveness.lua.ts), which no task script reads: a task whose instance is gone is failed by
 * the next look for orphans (TASK_REAP, told which instances are gone) or by a read of it from
 * an instance that learnt the instance is gone (TASK_GET is told the instances lately gone).
 */
const PRELUDE = `
local TERMINAL = { completed = true, failed = true, cancelled = true }
local NOT_KEPT = ${luaString(RESULT_NOT_KEPT)}
local ORPHAN_MESSAGE = ${luaString(ORPHANED_TASK.statusMessage!)}
local ORPHAN_ERROR = ${luaString(JSON.stringify(ORPHANED_TASK.error))}
-- Expired entries an account forgets, at most, per call (the rest at the next calls).
local PRUNE = 64
-- The bucket this script works in: the hash tag of KEYS[1].
local T = P .. '{' .. BT .. '}'
local GALL = T .. ':all'
local GBYTES = T .. ':all:b'
local RUNNING = T .. ':run'
local INSTANCES = T .. ':tinst'
local function tkey(id) return T .. ':t:' .. id end
local function ckey(kind, caller) return T .. ':' .. kind .. ':' .. caller end
-- The lexical range of an instance's entries in RUNNING (instance ids hold no space).
local function runningOf(instance) return '[' .. instance .. ' ', '(' .. instance .. '!' end
-- What the bucket holds more than before this script: tasks, bytes (for the global counter).
local DN, DB = 0, 0
-- On one Redis the global counter is in reach (KEYS[2], no slots): a script checks and updates
-- it in its own step, as it does its bucket. On a cluster the store does, around the script.
local COUNTER = (not CLUSTERED) and KEYS[2] or nil
local function counted(field) return tonumber(redis.call('HGET', COUNTER, field) or '0') end

-- On a cluster, every key touched must be declared: a key found by reading another is asked for
-- (the prelude's want, then asking) before the step that touches it, and call stops a script
-- that touches one not declared (a bug: the cluster could not have checked it before the script
-- ran). DECLARED (the script's KEYS, on a cluster), MISSING, want and ready are the prelude's.
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
-- The reply asking for the keys wanted and not declared, then what the script did so far (a
-- task script's own form: the global counter's changes come first).
local function asking(partial)
  local out = { -1, DN, DB, #MISSING }
  for _, key in ipairs(MISSING) do out[#out + 1] = key end
  for _, v in ipairs(partial or {}) do out[#out + 1] = v end
  return out
end
-- The reply of a script that may change what is stored: what changed, then its result (on one
-- Redis what changed is in the global counter already: 0 0).
local function done(result)
  local out = { 0, DN, DB }
  if COUNTER then
    for field, delta in pairs({ n = DN, b = DB }) do
      if delta ~= 0 and redis.call('HINCRBY', COUNTER, field, delta) < 0 then redis.call('HSET', COUNTER, field, 0) end
    end
    out = { 0, 0, 0 }
  end
  for _, v in ipairs(result) do out[#out + 1] = v end
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

-- Forgets a task in the bucket's share of the global counter.
local function forgetGlobal(id)
  DB = DB - tonumber(call('HGET', GBYTES, id) or '0')
  call('HDEL', GBYTES, id)
  DN = DN - call('ZREM', GALL, id)
end

local function pruneCaller(caller, now)
  for _, id in ipairs(call('ZRANGEBYSCORE', ckey('tc', caller), '-inf', now, 'LIMIT', 0, PRUNE)) do
    forgetCaller(id, caller)
  end
end

local function pruneGlobal(now, most)
  for _, id in ipairs(call('ZRANGEBYSCORE', GALL, '-inf', now, 'LIMIT', 0, most)) do forgetGlobal(id) end
end

-- What a caller (none: '') holds now (cn tasks, cb bytes), and what the bucket freed of the
-- global counter so far (fn tasks, fb bytes: pruned, or planned to be removed).
local function holdings(caller)
  local held = { cn = 0, cb = 0, fn = -DN, fb = -DB }
  if caller ~= '' then
    held.cn = call('ZCARD', ckey('tc', caller))
    held.cb = tonumber(call('HGET', ckey('tb', caller), '#') or '0')
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
      if call('ZSCORE', GALL, id) then held.fn = held.fn + 1 end
      held.fb = held.fb + tonumber(call('HGET', GBYTES, id) or '0')
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
  DB = DB + size
end

-- Keeps an index at least until at (epoch ms), now being now (PTTL: Redis 6.2 has no PEXPIRETIME).
local function keepUntil(index, at, now)
  local ttl = call('PTTL', index)
  if ttl < 0 or now + ttl < at then call('PEXPIREAT', index, at) end
end

-- Enters a new task in its owner's index (in this bucket); entries of tasks whose time to live
-- lapsed leave it as new ones come.
local function own(owner, id, createdAt, expiresAt, now)
  local owned, ownedUntil = T .. ':to:' .. owner, T .. ':tox:' .. owner
  for _, old in ipairs(call('ZRANGEBYSCORE', ownedUntil, '-inf', now, 'LIMIT', 0, 8)) do
    call('ZREM', owned, old)
    call('ZREM', ownedUntil, old)
  end
  call('ZADD', owned, createdAt, id)
  call('ZADD', ownedUntil, expiresAt, id)
  keepUntil(owned, expiresAt, now)
  keepUntil(ownedUntil, expiresAt, now)
end

-- A task that ended: its instance's entry no longer lists it, nor its side keys hold anything.
local function release(key, id)
  local instance = call('HGET', key, 'i')
  if instance then call('ZREM', RUNNING, instance .. ' ' .. id) end
  call('DEL', key .. ':q', key .. ':a')
end

-- Plans the end of a task whose record, result and error take size bytes: the caller's oldest
-- ended tasks to remove to make room (never another caller's), or false when it cannot be kept
-- (larger than the caller's whole budget: nothing the caller holds is removed for it; more than
-- all the caller's ended tasks free; or no room in the global counter, roomy false). nil while
-- keys it needs are not declared (see asking).
local function planEnd(key, size, roomy)
  local caller = call('HGET', key, 'c') or ''
  wantCaller(caller)
  if not ready() then return nil end
  if not roomy then return false end
  local maxCaller = tonumber(call('HGET', key, 'mb') or '') or math.huge
  if caller ~= '' and size > maxCaller then return false end
  local ids = planRoom(caller, holdings(caller), function(held)
    return caller == '' or held.cb + size <= maxCaller
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
local function ends(key, id, status, message, now, result, err, roomy)
  local room = planEnd(key, #message + #result + #err, roomy)
  if room == nil then return false end
  settle(key, id, status, message, now, result, err, room)
  return true
end

-- The status of a task that exists (false otherwise).
local function live(key)
  return call('HGET', key, 's') or false
end

-- The status of a task that exists and has not ended (false otherwise).
local function running(key)
  local status = live(key)
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

-- Ends the tasks of entries of RUNNING (as settle, with the given end, its bytes counted without
-- a place taken in the global counter first), in three steps that each ask first for the keys
-- they need: the tasks', their callers' accounts, the room their ends take. Entries of tasks that
-- ended or are gone leave RUNNING. Returns the ids ended, or nil and asking(those ended so far).
local function settleAll(entries, status, message, now, result, err)
  local ids = {}
  for n, entry in ipairs(entries) do
    ids[n] = string.sub(entry, string.find(entry, ' ', 1, true) + 1)
    wantTask(ids[n])
  end
  if not ready() then return nil, asking() end
  for _, id in ipairs(ids) do
    local current = call('HGET', tkey(id), 's')
    if current and not TERMINAL[current] then wantCaller(call('HGET', tkey(id), 'c') or '') end
  end
  if not ready() then return nil, asking() end
  local settled = {}
  for n, id in ipairs(ids) do
    local key = tkey(id)
    local current = call('HGET', key, 's')
    if current and not TERMINAL[current] then
      if not ends(key, id, status, message, now, result, err, true) then return nil, asking(settled) end
      settled[#settled + 1] = id
    else
      call('ZREM', RUNNING, entries[n])
    end
  end
  return settled
end
`;

/**
 * The global counter (`tasks`, a key of its own: touched by creates and ends only): HASH `n`
 * (tasks stored), `b` (their bytes), `mn`, `mb` (the bounds, as the last create gave them).
 * Takes n places and `bytes` when they fit under the bounds. ARGV: n, bytes, max tasks, max
 * bytes ('' for the bounds kept) → `{ 1 }` taken | `{ 0, tasks over, bytes over }` nothing taken.
 */
export const TASK_RESERVE = `
local G = KEYS[1]
local n, bytes = tonumber(ARGV[3]), tonumber(ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', G, 'mn', ARGV[5], 'mb', ARGV[6]) end
local maxN = tonumber(redis.call('HGET', G, 'mn') or '') or math.huge
local maxB = tonumber(redis.call('HGET', G, 'mb') or '') or math.huge
local heldN = tonumber(redis.call('HGET', G, 'n') or '0')
local heldB = tonumber(redis.call('HGET', G, 'b') or '0')
if (n > 0 and heldN + n > maxN) or heldB + bytes > maxB then
  return { 0, math.max(0, heldN + n - maxN), math.max(0, heldB + bytes - maxB) }
end
if n ~= 0 then redis.call('HINCRBY', G, 'n', n) end
if bytes ~= 0 then redis.call('HINCRBY', G, 'b', bytes) end
return { 1 }
`;

/** Adds to the global counter what a bucket holds more (less: negative), never below 0. ARGV: tasks, bytes → 1. */
export const TASK_ADJUST = `
local G = KEYS[1]
for n, field in ipairs({ 'n', 'b' }) do
  local delta = tonumber(ARGV[2 + n])
  if delta ~= 0 and redis.call('HINCRBY', G, field, delta) < 0 then redis.call('HSET', G, field, 0) end
end
return 1
`;

/**
 * ARGV: id, base JSON, caller ('' for none), instance, createdAt, expiresAt, now, status message
 * ('' for none), max tasks per caller, max bytes per caller, result ttl ms, what the global
 * counter lacks (tasks, bytes: 0 0 when the store took the new task's place there), the owner
 * when its index is in this bucket ('' when it is in another: see TASK_OWN), then the global
 * bounds (max tasks, max bytes: checked here on one Redis, see COUNTER) →
 * done({ 1 }) created | done({ 0 }) the caller's budget is full of running tasks | done({ 3 })
 * the caller's oldest ended tasks were removed to free what the counter lacks (take a place
 * again) | done({ 2 }) they would not free it (nothing removed). What does not fit the caller's
 * budget first removes its oldest ended tasks.
 */
export const TASK_CREATE =
  PRELUDE +
  `
local id, base, caller, instance = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local createdAt, expiresAt, now, message = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
local maxPerCaller, maxBytesPerCaller, resultTtl = tonumber(ARGV[11]), tonumber(ARGV[12]), ARGV[13]
local lackN, lackB, owner = tonumber(ARGV[14]), tonumber(ARGV[15]), ARGV[16]
local maxStored, maxStoredBytes = tonumber(ARGV[17]), tonumber(ARGV[18])
local size = #base + #message
wantCaller(caller)
if not ready() then return asking() end
pruneGlobal(now, PRUNE)
if caller ~= '' then pruneCaller(caller, now) end
local held = holdings(caller)
if lackN > 0 or lackB > 0 then
  local room = planRoom(caller, held, function(h) return h.fn >= lackN and h.fb >= lackB end, {})
  if not room then return done({ 2 }) end
  for _, old in ipairs(room) do wantTask(old) end
  if not ready() then return asking() end
  evict(room, caller)
  return done({ 3 })
end
local room = {}
if caller ~= '' then
  room = planRoom(caller, held, function(h) return h.cn < maxPerCaller and h.cb + size <= maxBytesPerCaller end, room)
  if not room then return done({ 0 }) end
end
if COUNTER then
  redis.call('HSET', COUNTER, 'mn', maxStored, 'mb', maxStoredBytes)
  local gn, gb = counted('n'), counted('b')
  room = planRoom(caller, held, function(h)
    return gn - h.fn < maxStored and gb - h.fb + size <= maxStoredBytes
  end, room)
  if not room then return done({ 2 }) end
end
for _, old in ipairs(room) do wantTask(old) end
if not ready() then return asking() end
evict(room, caller)
local key = tkey(id)
call('HSET', key, 'b', base, 's', 'working', 'u', now, 'i', instance, 'c', caller, 'x', expiresAt,
  'rt', resultTtl, 'mb', maxBytesPerCaller)
if message ~= '' then call('HSET', key, 'sm', message) end
call('PEXPIREAT', key, expiresAt)
DN = DN + call('ZADD', GALL, expiresAt, id)
count(key, id, caller, size)
if caller ~= '' then
  call('ZADD', ckey('tc', caller), expiresAt, id)
  keepUntil(ckey('tc', caller), expiresAt, now)
  keepUntil(ckey('tb', caller), expiresAt, now)
end
call('ZADD', RUNNING, 0, instance .. ' ' .. id)
call('SADD', INSTANCES, instance)
if owner ~= '' then own(owner, id, createdAt, expiresAt, now) end
return done({ 1 })
`;

/**
 * The entry of a new task in its owner's index, when the owner's bucket is not the task's (the
 * create wrote it itself otherwise). ARGV: owner, id, createdAt, expiresAt, now → 1.
 */
export const TASK_OWN =
  PRELUDE +
  `
own(ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]))
return 1
`;

/**
 * ARGV: id, now, '1' to read the result ('0': left out, a poll of the status costs the same
 * whatever its size), then the instances lately gone as this instance knows them (a task of
 * theirs still running is failed as orphaned first) → done({}) for a task unknown |
 * done({ b, s, sm, u, r, e, x, q1 key, q1 JSON, ... }) ('' for an absent field).
 */
export const TASK_GET =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[4])
local key = tkey(id)
local status = live(key)
if not status then return done({}) end
if not TERMINAL[status] and #ARGV > 5 then
  local instance = call('HGET', key, 'i')
  for n = 6, #ARGV do
    if ARGV[n] == instance then
      if not ends(key, id, 'failed', ORPHAN_MESSAGE, now, '', ORPHAN_ERROR, true) then return asking() end
      break
    end
  end
end
local f = call('HMGET', key, 'b', 's', 'sm', 'u', 'e', 'x')
local result = ''
if ARGV[5] == '1' then result = call('HGET', key, 'r') or '' end
local out = { f[1], f[2], f[3] or '', f[4], result, f[5] or '', f[6] }
for _, v in ipairs(call('HGETALL', key .. ':q')) do out[#out + 1] = v end
return done(out)
`;

/** ARGV: id, message, now → 1 | 0. */
export const TASK_STATUS_MESSAGE =
  PRELUDE +
  `
local key, now = tkey(ARGV[3]), tonumber(ARGV[5])
if not running(key) then return 0 end
call('HSET', key, 'sm', ARGV[4], 'u', now)
return 1
`;

/** ARGV: id, now, key1, JSON1, ... → 1 | 0 (only keys not outstanding are added). */
export const TASK_ASK =
  PRELUDE +
  `
local key, now = tkey(ARGV[3]), tonumber(ARGV[4])
if not running(key) then return 0 end
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
local key, now = tkey(ARGV[3]), tonumber(ARGV[4])
local taken = {}
if not running(key) then return taken end
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
local key, now = tkey(ARGV[3]), tonumber(ARGV[4])
if not running(key) then return 0 end
for n = 5, #ARGV do call('HDEL', key .. ':q', ARGV[n]) end
call('HSET', key, 'u', now)
resumeIfAnswered(key)
return 1
`;

/**
 * ARGV: id, status, message, now, result JSON, error JSON ('' for none), '1' when the store took
 * the bytes of message, result and error in the global counter ('0': no room there, the task
 * fails with RESULT_NOT_KEPT; on one Redis the counter is checked here) → done({ the status
 * before }) or done({}) for a task unknown.
 */
export const TASK_SETTLE =
  PRELUDE +
  `
local id, now = ARGV[3], tonumber(ARGV[6])
local key = tkey(id)
local before = live(key)
if not before then return done({}) end
if TERMINAL[before] then return done({ before }) end
local roomy = ARGV[9] == '1'
if COUNTER then
  local most = tonumber(redis.call('HGET', COUNTER, 'mb') or '') or math.huge
  roomy = counted('b') + #ARGV[5] + #ARGV[7] + #ARGV[8] <= most
end
if not ends(key, id, ARGV[4], ARGV[5], now, ARGV[7], ARGV[8], roomy) then return asking() end
return done({ before })
`;

/**
 * ARGV: owner, cursor ('' for the first page), limit, now → { more (0|1), id... }, or
 * { 'cursor' } for an unknown cursor. In the owner's bucket: the tasks are read by the store
 * (they live in their callers' buckets); entries whose time to live lapsed leave the index here.
 */
export const TASK_LIST =
  PRELUDE +
  `
local owned, ownedUntil = T .. ':to:' .. ARGV[3], T .. ':tox:' .. ARGV[3]
local limit, now = tonumber(ARGV[5]), tonumber(ARGV[6])
for _, old in ipairs(call('ZRANGEBYSCORE', ownedUntil, '-inf', now, 'LIMIT', 0, 4 * limit)) do
  call('ZREM', owned, old)
  call('ZREM', ownedUntil, old)
end
local start = 0
if ARGV[4] ~= '' then
  local rank = call('ZRANK', owned, ARGV[4])
  if not rank then return { 'cursor' } end
  start = rank + 1
end
local ids = call('ZRANGE', owned, start, start + limit)
local out = { 0 }
if #ids > limit then
  out[1] = 1
  ids[#ids] = nil
end
for _, id in ipairs(ids) do out[#out + 1] = id end
return out
`;

/** ARGV: instance, status, message, now, result JSON, error JSON → done({ the ids settled }). */
export const TASK_SETTLE_INSTANCE =
  PRELUDE +
  `
local instance, now = ARGV[3], tonumber(ARGV[6])
local from, to = runningOf(instance)
local settled, ask = settleAll(call('ZRANGEBYLEX', RUNNING, from, to), ARGV[4], ARGV[5], now, ARGV[7], ARGV[8])
if not settled then return ask end
call('SREM', INSTANCES, instance)
return done(settled)
`;

/**
 * One look of the bucket for what lapsed: the tasks whose time to live lapsed leave its share of
 * the global counter (at most \`budget\`), and the tasks of the instances named gone are failed
 * as orphaned (at most \`budget\`). ARGV: now, budget, the instances gone... →
 * done({ n, the n ids failed, the instances with running tasks in the bucket... }).
 */
export const TASK_REAP =
  PRELUDE +
  `
local now, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
local gone = {}
for n = 5, #ARGV do gone[ARGV[n]] = true end
pruneGlobal(now, budget)
local entries, instances = {}, {}
for _, instance in ipairs(call('SMEMBERS', INSTANCES)) do
  local from, to = runningOf(instance)
  if call('ZLEXCOUNT', RUNNING, from, to) == 0 then
    call('SREM', INSTANCES, instance)
  else
    instances[#instances + 1] = instance
    if gone[instance] and #entries < budget then
      for _, entry in ipairs(call('ZRANGEBYLEX', RUNNING, from, to, 'LIMIT', 0, budget - #entries)) do
        entries[#entries + 1] = entry
      end
    end
  end
end
local failed, ask = settleAll(entries, 'failed', ORPHAN_MESSAGE, now, '', ORPHAN_ERROR)
if not failed then return ask end
local out = { #failed }
for _, id in ipairs(failed) do out[#out + 1] = id end
for _, instance in ipairs(instances) do out[#out + 1] = instance end
return done(out)
`;

/** A Lua string literal of an ASCII text (JSON's escapes are Lua's for it). */
function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error('Only printable ASCII is embedded in the task scripts');
  return JSON.stringify(text);
}
