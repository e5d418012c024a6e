/**
 * Scripts of the session store (ARGV[1] prefix, ARGV[2] instance id, then their own; KEYS[1]
 * the session's bucket key, KEYS[2] the session's hash when there is one session).
 */

/**
 * A place under the session cap, taken before a create (KEYS[1] = the `sessions` counter, in its
 * own slot, touched on create and end only). ARGV: limit → 1 taken, 0 full. Released by the
 * end's pending work, or at once by a create that failed.
 */
export const RESERVE = `
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[3]) then return 0 end
redis.call('INCR', KEYS[1])
return 1
`;

/**
 * ARGV: sid, record JSON, now, ttl ms, epoch, principal digest ('' when anonymous) → 1. The
 * digest (field `pd`) is what the access script checks a lookup against.
 */
export const CREATE = `
local s = skey(ARGV[3])
redis.call('HSET', s, 'rec', ARGV[4], 'ep', ARGV[7], 'seq', 0, 'xp', ARGV[5] + ARGV[6], 'pd', ARGV[8])
redis.call('PEXPIRE', s, ARGV[6])
redis.call('ZADD', EXPIRY, ARGV[5], ARGV[3])
return 1
`;

/**
 * ARGV: ttl ms, then a group of five per session looked up: sid, now, idle ms (-1: never idle),
 * '1' when the caller holds the record already, the caller's principal digest ('' when
 * anonymous). Replies one answer per group, in order: the fields of the hash the store reads, as
 * a flat array: `holder`, the patched facts `p:<name>`, and `rec` unless the caller holds it (it
 * never changes after the create); nothing else (`ep`, `seq`, `xp`, ... are fewer bytes for
 * Redis to write and ioredis to decode per call); 0 when unknown; -1 when found
 * idle (and ended here, unless a live instance holds its stream); -2 when the session belongs to
 * another principal, in which case nothing is changed (neither its clock nor its end).
 * The session's keys get a fresh TTL only once less than half of it is left (`xp` records when
 * they expire at the earliest), so a busy session costs three commands per lookup, not seven.
 * One call serves every lookup of an event-loop turn (see SessionLookups). On a cluster, when a
 * session found idle has POST-stream logs not declared, it answers `{'asking', n, keys...}`
 * before it changes anything (see asked-keys.ts).
 */
export const ACCESS = `
local ttl = tonumber(ARGV[3])
-- What a lookup finds, reading only: 'end' (idle, or indexed with its hash gone), 'unknown',
-- 'foreign' (another principal's), or the hash's fields and the session's activity score.
local function inspect(sid, now, idle, principal)
  local s = skey(sid)
  local fields = redis.call('HGETALL', s)
  if #fields == 0 then
    if redis.call('ZSCORE', EXPIRY, sid) then return 'end' end
    return 'unknown'
  end
  local owner = ''
  for i = 1, #fields, 2 do
    if fields[i] == 'pd' then owner = fields[i + 1] end
  end
  if owner ~= principal then return 'foreign' end
  local score = redis.call('ZSCORE', EXPIRY, sid)
  local seen = tonumber(score or now)
  if idle >= 0 and now - seen > idle and not holderAlive(s) then return 'end' end
  return fields, score
end
local function access(sid, now, holdsRecord, fields, score)
  if fields == 'unknown' then return 0 end
  if fields == 'foreign' then return -2 end
  if fields == 'end' then
    endSession(sid, 'expired')
    return -1
  end
  local s = skey(sid)
  if (not score) or now > tonumber(score) then redis.call('ZADD', EXPIRY, now, sid) end
  local reply, xp = {}, 0
  for i = 1, #fields, 2 do
    local name = fields[i]
    if name == 'xp' then xp = tonumber(fields[i + 1])
    elseif name == 'holder' or string.sub(name, 1, 2) == 'p:' or (name == 'rec' and not holdsRecord) then
      reply[#reply + 1] = name
      reply[#reply + 1] = fields[i + 1]
    end
  end
  if xp - now < ttl / 2 then
    redis.call('PEXPIRE', s, ttl)
    redis.call('PEXPIRE', s .. ':subs', ttl)
    redis.call('PEXPIRE', s .. ':out', ttl)
    redis.call('HSET', s, 'xp', now + ttl)
  end
  return reply
end
-- Every lookup is inspected before any is answered: a session to end asks for its POST-stream
-- logs before anything changed (the sessions of one call are distinct: SessionLookups).
local found = {}
for i = 4, #ARGV, 5 do
  local fields, score = inspect(ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), ARGV[i + 4])
  if fields == 'end' then wantPostLogs(skey(ARGV[i])) end
  found[#found + 1] = { fields, score }
end
if not ready() then return asking() end
local replies = {}
for n, lookup in ipairs(found) do
  local at = 4 + (n - 1) * 5
  replies[n] = access(ARGV[at], tonumber(ARGV[at + 1]), ARGV[at + 3] == '1', lookup[1], lookup[2])
end
return replies
`;

/** ARGV: sid, then name/JSON pairs → 1 updated, 0 gone. */
export const UPDATE = `
local s = skey(ARGV[3])
if redis.call('EXISTS', s) == 0 then return 0 end
for i = 4, #ARGV, 2 do redis.call('HSET', s, 'p:' .. ARGV[i], ARGV[i + 1]) end
return 1
`;

/**
 * ARGV: now, ttl ms, then session ids: their activity clock moves to now, and their keys get a
 * fresh TTL as a lookup gives them (a session kept alive by a request in flight, which makes no
 * lookup, must not lose its keys). Ended ones stay ended.
 */
export const TOUCH = `
local now, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
for i = 5, #ARGV do
  local sid = ARGV[i]
  local s = skey(sid)
  redis.call('ZADD', EXPIRY, 'XX', 'GT', now, sid)
  if redis.call('EXISTS', s) == 1 and tonumber(redis.call('HGET', s, 'xp') or 0) - now < ttl / 2 then
    redis.call('PEXPIRE', s, ttl)
    redis.call('PEXPIRE', s .. ':subs', ttl)
    redis.call('PEXPIRE', s .. ':out', ttl)
    redis.call('HSET', s, 'xp', now + ttl)
  end
end
return 1
`;

/**
 * ARGV: cutoff, now, then the ids the caller read from the bucket's index as idle before the
 * cutoff (their keys declared) → {pending end (JSON) of each session ended...}. Each is checked
 * again (a request may have come meanwhile). A session held by a live instance is kept (its
 * clock moves to now); one whose holder died is released and gets a full idle period back. On a
 * cluster, when a session to end has POST-stream logs not declared, it answers
 * `{'asking', n, keys...}` before it changes anything (see asked-keys.ts).
 */
export const EXPIRE = `
local cutoff, now = tonumber(ARGV[3]), ARGV[4]
local function ends(sid)
  local score = redis.call('ZSCORE', EXPIRY, sid)
  return score and tonumber(score) < cutoff and holderAlive(skey(sid)) == nil
end
if CLUSTERED then
  for i = 5, #ARGV do
    if ends(ARGV[i]) then wantPostLogs(skey(ARGV[i])) end
  end
  if not ready() then return asking() end
end
local result = {}
for i = 5, #ARGV do
  local sid = ARGV[i]
  local s = skey(sid)
  local score = redis.call('ZSCORE', EXPIRY, sid)
  if score and tonumber(score) < cutoff then
    local alive = holderAlive(s)
    if alive == nil then
      local entry = endSession(sid, 'expired')
      if entry then result[#result + 1] = entry end
    else
      if alive == false then redis.call('HDEL', s, 'holder') end
      redis.call('ZADD', EXPIRY, now, sid)
    end
  end
end
return result
`;

/**
 * ARGV: sid, reason → its pending end (JSON) when it existed, else 0. On a cluster, when the
 * session has POST-stream logs not declared, `{'asking', n, keys...}` first (see asked-keys.ts).
 */
export const END = `
wantPostLogs(skey(ARGV[3]))
if not ready() then return asking() end
return endSession(ARGV[3], ARGV[4]) or 0
`;

/**
 * ARGV: sid, uri, most URIs per session ('' for no cap), the log's head as the caller knows it
 * ('' on one Redis) → 1 stored (or already), 0 when the session has ended, 2 when it holds that
 * many other URIs already (nothing stored: the cap is checked in the same script as the write,
 * so subscribes on several instances never pass it). When an instance holds the session's
 * stream, it is told (on its own channel) to add the URI to its index. On one Redis, scripts run
 * one at a time and one subscriber connection gets its messages in publish order, so the holder
 * hears of the subscription before any notification published after this script. On a cluster
 * the message and a later notification travel through different shards, in no set order: the
 * message carries the head (`n`), and the holder gives the stream what it heard of the URI past
 * it (see GetStream).
 */
export const SUBSCRIBE = `
local sid, uri, limit, after = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local s = skey(sid)
if redis.call('EXISTS', s) == 0 then return 0 end
if redis.call('SISMEMBER', s .. ':subs', uri) == 1 then return 1 end
if limit and redis.call('SCARD', s .. ':subs') >= limit then return 2 end
if redis.call('SADD', s .. ':subs', uri) == 1 then
  redis.call('INCR', SUBCOUNT)
  redis.call('PEXPIRE', s .. ':subs', redis.call('PTTL', s))
  local holder = redis.call('HGET', s, 'holder')
  if holder then
    publishTo(instanceOf(holder), cjson.encode({t = 'sub', sid = sid, uri = uri, holder = holder, on = 1, n = after}))
  end
end
return 1
`;

/**
 * ARGV: sid, uri → 1 removed, 0 not held. The holder of the session's stream, if any, is told
 * as on subscribe.
 */
export const UNSUBSCRIBE = `
local sid, uri = ARGV[3], ARGV[4]
local s = skey(sid)
if redis.call('SREM', s .. ':subs', uri) == 1 then
  redis.call('DECR', SUBCOUNT)
  local holder = redis.call('HGET', s, 'holder')
  if holder then
    publishTo(instanceOf(holder), cjson.encode({t = 'sub', sid = sid, uri = uri, holder = holder, on = 0}))
  end
  return 1
end
return 0
`;

/**
 * KEYS[1]: the session's bucket key, or the caller's own window key. ARGV: key, window ms, now,
 * sid ('' for a caller without a session) → {count, start}.
 */
export const RATE_HIT = `
local key, window, now, sid = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local k
if sid ~= '' then
  local s = skey(sid)
  -- a window is never re-created for a session that ended
  if redis.call('EXISTS', s) == 0 then return {0, now} end
  k = s .. ':rl'
else
  k = KEYS[1]
end
local start = tonumber(redis.call('HGET', k, 'start'))
if (not start) or now - start >= window then
  redis.call('HSET', k, 'start', now, 'count', 1)
  redis.call('PEXPIRE', k, window * 2)
  return {1, now}
end
return {redis.call('HINCRBY', k, 'count', 1), start}
`;
