/** Scripts of the notification bus (ARGV[1] prefix, ARGV[2] instance id, then their own). */

/**
 * One notification to its whole audience, in one round trip: appended to each audience
 * session's outbox, then ONE publish carrying the message and, for the sessions whose stream is
 * held somewhere, `[sid, seq, holder]` so that each holder writes it to its stream.
 * ARGV: kind ('u' resource updated, 'l' list changed), target (URI or list kind), JSON,
 * coalescing key, outbox length → {sessions reached, deliveries as JSON}.
 */
export const FANOUT = `
local kind, target, json, ckey, maxlen = ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local audience = (kind == 'u') and (P .. 'sub:' .. target) or (P .. 'streamed')
local d = {}
local n = 0
for _, sid in ipairs(redis.call('SMEMBERS', audience)) do
  local s = skey(sid)
  if redis.call('EXISTS', s) == 0 then
    redis.call('SREM', audience, sid)
  else
    n = n + 1
    local seq, holder = append(s, json, ckey, maxlen)
    if seq > 0 and holder then d[#d + 1] = {sid, seq, holder} end
  end
end
local encoded = (#d > 0) and cjson.encode(d) or '[]'
redis.call('PUBLISH', P .. 'bus', '{"t":"' .. kind .. '","x":' .. cjson.encode(target) .. ',"from":' ..
  cjson.encode(ME) .. ',"j":' .. cjson.encode(json) .. ',"d":' .. encoded .. '}')
return {n, encoded}
`;

/**
 * One message to one session's outbox (a server→client request for a client that reads only
 * its GET stream), published to its holder. ARGV: sid, JSON, outbox length → seq, or 0 when
 * the session has ended or nobody holds its stream (nothing is stored then).
 */
export const SEND = `
local sid, json, maxlen = ARGV[3], ARGV[4], ARGV[5]
local s = skey(sid)
local holder = redis.call('HGET', s, 'holder')
if not holder then return 0 end
local seq = append(s, json, '', maxlen)
redis.call('PUBLISH', P .. 'bus', '{"t":"s","from":' .. cjson.encode(ME) .. ',"j":' .. cjson.encode(json) ..
  ',"d":' .. cjson.encode({{sid, seq, holder}}) .. '}')
return seq
`;

/**
 * Makes a stream the session's standalone stream and says what to write on it first: the
 * entries after the client's last event id, or a resync (appended, so that they get ids) when
 * that id is unknown, foreign or trimmed. The stream it replaces is told to close.
 * ARGV: sid, holder ('<instance> <token>'), last seq ('-' without Last-Event-ID: a fresh
 * stream; '' for an id that is not a g: id: a resync), epoch of the last id,
 * outbox length, updated-JSON prefix, updated-JSON suffix, then the three list-changed JSONs
 * → 0 when the session has ended, else {epoch, seq, seq1, json1, seq2, json2, ...}.
 */
export const ATTACH = `
local sid, holder, maxlen = ARGV[3], ARGV[4], ARGV[7]
local s = skey(sid)
if redis.call('EXISTS', s) == 0 then return 0 end
local ep = redis.call('HGET', s, 'ep')
local prev = redis.call('HGET', s, 'holder')
redis.call('HSET', s, 'holder', holder)
redis.call('DEL', s .. ':pend')
redis.call('SADD', P .. 'streamed', sid)
redis.call('PEXPIRE', s .. ':out', redis.call('PTTL', s))
local seq = tonumber(redis.call('HGET', s, 'seq') or '0')
local out = {}
local last = tonumber(ARGV[5])
local replay = ARGV[5] == '-'
if last and ARGV[6] == ep and last >= 0 and last <= seq then
  if last == seq then
    replay = true
  else
    local rows = redis.call('XRANGE', s .. ':out', '(' .. last .. '-0', '+')
    if #rows > 0 and seqOf(rows[1][1]) == last + 1 then
      replay = true
      for _, row in ipairs(rows) do
        out[#out + 1] = seqOf(row[1])
        out[#out + 1] = row[2][2]
      end
    end
  end
end
if not replay then
  local resync = {}
  for _, uri in ipairs(redis.call('SMEMBERS', s .. ':subs')) do resync[#resync + 1] = ARGV[8] .. cjson.encode(uri) .. ARGV[9] end
  for i = 10, 12 do resync[#resync + 1] = ARGV[i] end
  for _, json in ipairs(resync) do
    out[#out + 1] = append(s, json, '', maxlen)
    out[#out + 1] = json
  end
end
if prev and prev ~= holder then publish({t = 'replaced', sid = sid, holder = prev, from = ME}) end
local result = {ep, tonumber(redis.call('HGET', s, 'seq'))}
for _, v in ipairs(out) do result[#result + 1] = v end
return result
`;

/**
 * Releases streams this instance held (client gone, or drained): pairs of sid and holder; each
 * is released only if it is still the holder, and its idle clock restarts. ARGV: now, pairs.
 */
export const DETACH = `
local now = ARGV[3]
for i = 4, #ARGV, 2 do
  local s = skey(ARGV[i])
  if redis.call('HGET', s, 'holder') == ARGV[i + 1] then
    redis.call('HDEL', s, 'holder')
    redis.call('ZADD', P .. 'expiry', 'XX', now, ARGV[i])
  end
end
return 1
`;

/**
 * The instance's heartbeat: its liveness key, and the keys of the sessions whose streams it
 * holds kept from expiring. ARGV: liveness ms, session ttl ms, then held sids → their outbox
 * sequences, in order (the safety poll compares them with what was delivered).
 */
export const HEARTBEAT = `
redis.call('SET', P .. 'inst:' .. ME, '1', 'PX', ARGV[3])
local ttl = ARGV[4]
local seqs = {}
for i = 5, #ARGV do
  local s = skey(ARGV[i])
  redis.call('PEXPIRE', s, ttl)
  redis.call('PEXPIRE', s .. ':subs', ttl)
  redis.call('PEXPIRE', s .. ':out', ttl)
  seqs[#seqs + 1] = tonumber(redis.call('HGET', s, 'seq') or '-1')
end
return seqs
`;
