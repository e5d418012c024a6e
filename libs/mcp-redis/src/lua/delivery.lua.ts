/**
 * Scripts of fan-out and live streams (ARGV[1] prefix, ARGV[2] instance id, then their own).
 * The log scripts name one shard of the log and its counter (one slot, `{ev}` or `{ev<k>}`); the
 * session scripts name the session's bucket key first, so each runs in one slot of a Redis Cluster.
 */

/**
 * One notification to its whole audience, in constant work whatever its size: appended ONCE to
 * its shard of the notification log (entry `<n>-0`, `n` from the shard's counter) and published
 * ONCE on that shard's channel (`<log>:bus`, its slot) with its shard and sequence; each instance
 * writes it to the streams it holds whose sessions subscribed (its own index) and to its modern
 * listeners. Nothing is written per subscriber. KEYS: the log shard, its counter. ARGV: kind
 * ('u' resource updated, 'l' list changed), target (URI or list kind), JSON, log length
 * (`MAXLEN ~`), the shard's number, the writer's stamp (field `o`: a resume merges the shards'
 * entries in its order) → the entry's sequence.
 */
export const FANOUT = `
local LOG, LOGSEQ = KEYS[1], KEYS[2]
local kind, target, json, loglen, shard, stamp = ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8]
local n = redis.call('INCR', LOGSEQ)
if n == 1 then
  -- A new counter next to a log that survived it (the counter alone was deleted): continue the log.
  local last = redis.call('XREVRANGE', LOG, '+', '-', 'COUNT', 1)[1]
  if last and seqOf(last[1]) >= n then
    n = seqOf(last[1]) + 1
    redis.call('SET', LOGSEQ, n)
  end
end
redis.call('XADD', LOG, 'MAXLEN', '~', loglen, n .. '-0', 'k', kind, 'x', target, 'j', json, 'o', stamp)
redis.call(PUB, LOG .. ':bus', '{"t":"' .. kind .. '","s":' .. shard .. ',"n":' .. n .. ',"x":' .. cjson.encode(target) ..
  ',"from":' .. cjson.encode(ME) .. ',"j":' .. cjson.encode(json) .. '}')
return n
`;

/**
 * One log shard's part of a resume (a resume runs one per shard, sent together). KEYS: the log
 * shard, its counter. ARGV: the client's last sequence in that shard
 * ('' for none: only the head is read), replay window (entries) → {head, 1 when every entry
 * after the cursor is still in the log (or the cursor is the head) else 0, then n1, kind1,
 * target1, json1, stamp1, ...} (the stamp '0' for an entry written without one). A cursor past
 * the head, further behind it than the window, or older than the log's first entry answers 0
 * without reading: the work is bounded by the window.
 */
export const LOG_READ = `
local LOG, LOGSEQ = KEYS[1], KEYS[2]
local head = tonumber(redis.call('GET', LOGSEQ) or '0')
local last, window = tonumber(ARGV[3]), tonumber(ARGV[4])
if not last then return {head, 0} end
if last < 0 or last > head or head - last > window then return {head, 0} end
if last == head then return {head, 1} end
local first = redis.call('XRANGE', LOG, '-', '+', 'COUNT', 1)[1]
if first == nil or seqOf(first[1]) > last + 1 then return {head, 0} end
local rows = redis.call('XRANGE', LOG, '(' .. last .. '-0', '+', 'COUNT', head - last)
if #rows == 0 or seqOf(rows[1][1]) ~= last + 1 then return {head, 0} end
local out = {head, 1}
for _, row in ipairs(rows) do
  out[#out + 1] = seqOf(row[1])
  out[#out + 1] = row[2][2]
  out[#out + 1] = row[2][4]
  out[#out + 1] = row[2][6]
  out[#out + 1] = row[2][8] or '0'
end
return out
`;

/**
 * One message to one session's outbox (a server→client request for a client that reads only
 * its GET stream), published to its holder's instance. ARGV: sid, JSON, outbox length, the
 * log's heads as this instance knows them (one per shard, joined by '.') → seq, or 0 when the
 * session has ended or nobody holds its stream (nothing is stored then).
 */
export const SEND = `
local sid, json, maxlen = ARGV[3], ARGV[4], ARGV[5]
local s = skey(sid)
local holder = redis.call('HGET', s, 'holder')
if not holder then return 0 end
local seq = append(s, json, maxlen, ARGV[6])
publishTo(instanceOf(holder), cjson.encode({t = 's', sid = sid, holder = holder, seq = seq, j = json}))
return seq
`;

/**
 * The session's part of making a stream its standalone stream: the holder (with its lease), the
 * subscriptions, and, for a resume, the outbox entries after the client's cursor. The stream it
 * replaces is told to close (on its instance's channel). ARGV: sid, holder ('<instance> <token>'), last outbox seq ('-'
 * without Last-Event-ID: a fresh stream; '' for an id that is not a g: id), epoch of the last
 * id, outbox length, lease ms → 0 when the session has ended, else {epoch, outbox seq, #subs,
 * uri..., 1 when the outbox still holds everything after the cursor else 0, then seq1, log1,
 * json1, ...} (each log is the heads its writer knew, as it wrote them: a string). At most the
 * outbox length is read (`COUNT`), whatever the cursor.
 */
export const ATTACH = `
local sid, holder, maxlen = ARGV[3], ARGV[4], tonumber(ARGV[7])
local s = skey(sid)
if redis.call('EXISTS', s) == 0 then return 0 end
local ep = redis.call('HGET', s, 'ep')
local prev = redis.call('HGET', s, 'holder')
redis.call('HSET', s, 'holder', holder, 'hl', redisNow() + tonumber(ARGV[8]))
redis.call('PEXPIRE', s .. ':out', redis.call('PTTL', s))
local seq = tonumber(redis.call('HGET', s, 'seq') or '0')
local subs = redis.call('SMEMBERS', s .. ':subs')
local lastOut = tonumber(ARGV[5])
local ok, rows = 0, {}
if ARGV[5] == '-' then
  ok = 1
elseif lastOut and ARGV[6] == ep and lastOut >= 0 and lastOut <= seq and seq - lastOut <= maxlen then
  if lastOut == seq then
    ok = 1
  else
    rows = redis.call('XRANGE', s .. ':out', '(' .. lastOut .. '-0', '+', 'COUNT', seq - lastOut)
    if #rows > 0 and seqOf(rows[1][1]) == lastOut + 1 then ok = 1 end
  end
end
if prev and prev ~= holder then
  publishTo(instanceOf(prev), cjson.encode({t = 'replaced', sid = sid, holder = prev, from = ME}))
end
local result = {ep, seq, #subs}
for _, uri in ipairs(subs) do result[#result + 1] = uri end
result[#result + 1] = ok
if ok == 1 then
  for _, row in ipairs(rows) do
    result[#result + 1] = seqOf(row[1])
    result[#result + 1] = row[2][4] or '0'
    result[#result + 1] = row[2][2]
  end
end
return result
`;

/**
 * A resync of a stream whose client's cursor cannot be replayed: one `updated` per subscribed
 * URI and the three list changes, appended to the outbox (so that they get ids). ARGV: sid,
 * outbox length, the log's heads (one per shard, joined by '.'), updated-JSON prefix,
 * updated-JSON suffix, then the three list-changed JSONs → 0 when the session has ended, else {sequence of the first, json...}.
 * It writes at most the outbox length (`maxSubscriptionsPerSession` bounds the URIs).
 */
export const RESYNC = `
local sid, maxlen, head = ARGV[3], tonumber(ARGV[4]), ARGV[5]
local s = skey(sid)
if redis.call('EXISTS', s) == 0 then return 0 end
local resync = {}
for _, uri in ipairs(redis.call('SMEMBERS', s .. ':subs')) do
  resync[#resync + 1] = ARGV[6] .. cjson.encode(uri) .. ARGV[7]
end
for i = 8, 10 do resync[#resync + 1] = ARGV[i] end
local result = {appendAll(s, resync, maxlen, head)}
for _, json in ipairs(resync) do result[#result + 1] = json end
return result
`;

/**
 * Releases streams this instance held (client gone, or drained): pairs of sid and holder (at
 * most 500 per call); each is released only if it is still the holder, and its idle clock
 * restarts. ARGV: now, pairs.
 */
export const DETACH = `
local now = ARGV[3]
for i = 4, #ARGV, 2 do
  local s = skey(ARGV[i])
  if redis.call('HGET', s, 'holder') == ARGV[i + 1] then
    redis.call('HDEL', s, 'holder', 'hl')
    redis.call('ZADD', EXPIRY, 'XX', now, ARGV[i])
  end
end
return 1
`;

/**
 * The instance's heartbeat in one bucket: the leases of the streams it holds there renewed and
 * the sessions' keys kept from expiring. ARGV: lease ms, session ttl ms, then held sids (at
 * most 500 per call) → per sid its outbox sequence, or -1 when the session is gone (the safety
 * poll compares the sequences with what was delivered; a gone session's end was missed, its
 * `end` message lost).
 */
export const HEARTBEAT = `
local lease, ttl = redisNow() + tonumber(ARGV[3]), ARGV[4]
local seqs = {}
for i = 5, #ARGV do
  local s = skey(ARGV[i])
  local seq = redis.call('HGET', s, 'seq')
  if seq then
    local holder = redis.call('HGET', s, 'holder')
    if holder and instanceOf(holder) == ME then redis.call('HSET', s, 'hl', lease) end
    redis.call('PEXPIRE', s, ttl)
    redis.call('PEXPIRE', s .. ':subs', ttl)
    redis.call('PEXPIRE', s .. ':out', ttl)
    seqs[#seqs + 1] = tonumber(seq)
  else
    seqs[#seqs + 1] = -1
  end
end
return seqs
`;

/**
 * ARGV: held sids (at most 500 per call) → for each, its subscribed URIs as JSON, or 0 when the
 * session is gone (an instance's index after a reconnect; an end announced meanwhile was lost).
 */
export const HELD_SUBSCRIPTIONS = `
local result = {}
for i = 3, #ARGV do
  local s = skey(ARGV[i])
  if redis.call('EXISTS', s) == 1 then
    result[#result + 1] = cjson.encode(redis.call('SMEMBERS', s .. ':subs'))
  else
    result[#result + 1] = 0
  end
end
return result
`;
