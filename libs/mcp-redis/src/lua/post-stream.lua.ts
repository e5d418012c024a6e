/**
 * Scripts of the POST-stream logs (ARGV[1] prefix, ARGV[2] instance id, then their own). A log
 * has an owner, '<instance> <token>': the connection that carries the stream now. The instance
 * that runs the request writes every event to the log and, when the owner is another
 * connection, publishes it to the owner's instance.
 */

/**
 * ARGV: sid, stream id, owner, logs kept per session → 1 logged, 0 when the session ended. The
 * oldest logs beyond the number kept are deleted: their ids are read from the session's index,
 * so on a cluster, when their keys are not declared, it answers `{'asking', n, keys...}` once the
 * new log is written (what its writer appends next finds it: the appends do not wait for the
 * open), and the call run again with them declared deletes them; the new log is written once.
 */
export const POST_OPEN = `
local sid, id, owner, keep = ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
local s = skey(sid)
if redis.call('EXISTS', s) == 0 then return 0 end
if not redis.call('ZSCORE', s .. ':rs', id) then
  local ttl = redis.call('PTTL', s)
  redis.call('ZADD', s .. ':rs', redis.call('HINCRBY', s, 'posts', 1), id)
  redis.call('HSET', s .. ':rm:' .. id, 'owner', owner)
  redis.call('PEXPIRE', s .. ':rm:' .. id, ttl)
  redis.call('PEXPIRE', s .. ':rs', ttl)
end
local extra = redis.call('ZCARD', s .. ':rs') - keep
if extra > 0 then
  local old = redis.call('ZRANGE', s .. ':rs', 0, extra - 1)
  wantPostLogs(s, old)
  if not ready() then return asking() end
  for _, gone in ipairs(old) do dropPostLog(s, gone) end
  redis.call('ZREMRANGEBYRANK', s .. ':rs', 0, extra - 1)
end
return 1
`;

/**
 * ARGV: sid, stream id, seq, JSON, log length, the writer's own owner string → 0 not logged
 * (session ended), 1 the writer still owns it, 2 forwarded to the owner.
 */
export const POST_APPEND = `
local sid, id, seq, json, maxlen, mine = ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local s = skey(sid)
local meta = s .. ':rm:' .. id
local owner = redis.call('HGET', meta, 'owner')
if not owner then return 0 end
redis.call('XADD', s .. ':r:' .. id, 'MAXLEN', maxlen, seq .. '-0', 'j', json)
redis.call('PEXPIRE', s .. ':r:' .. id, redis.call('PTTL', meta))
if owner == mine then return 1 end
publishTo(instanceOf(owner), cjson.encode({t = 'post', sid = sid, id = id, seq = tonumber(seq), j = json, owner = owner}))
return 2
`;

/** ARGV: sid, stream id, the writer's own owner string: the stream ended. */
export const POST_FINISH = `
local sid, id, mine = ARGV[3], ARGV[4], ARGV[5]
local meta = skey(sid) .. ':rm:' .. id
local owner = redis.call('HGET', meta, 'owner')
if not owner then return 0 end
redis.call('HSET', meta, 'done', '1')
if owner ~= mine then
  publishTo(instanceOf(owner), cjson.encode({t = 'postEnd', sid = sid, id = id, owner = owner}))
end
return 1
`;

/**
 * A client resumes a POST stream on a new connection, here. ARGV: sid, stream id, last seq
 * seen, new owner → {'unknown'} | {'gap'} | {'resumed', done, seq1, json1, ...}; the previous
 * owner is told to let go.
 */
export const POST_RESUME = `
local sid, id, after, owner = ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
local s = skey(sid)
local meta = s .. ':rm:' .. id
local prev = redis.call('HGET', meta, 'owner')
if not prev then return {'unknown'} end
local rows = redis.call('XRANGE', s .. ':r:' .. id, '-', '+')
local last = (#rows > 0) and seqOf(rows[#rows][1]) or 0
if after > last then return {'unknown'} end
local first = (#rows > 0) and seqOf(rows[1][1]) or (last + 1)
if after < first - 1 then return {'gap'} end
redis.call('HSET', meta, 'owner', owner)
if prev ~= owner then
  publishTo(instanceOf(prev), cjson.encode({t = 'postMoved', sid = sid, id = id, owner = prev}))
end
local result = {'resumed', redis.call('HGET', meta, 'done') or '0'}
for _, row in ipairs(rows) do
  if seqOf(row[1]) > after then
    result[#result + 1] = seqOf(row[1])
    result[#result + 1] = row[2][2]
  end
end
return result
`;
