/**
 * Lua shared by every script: key names, the one `end` of a session, the outbox append and the
 * liveness check of a stream holder. Every script gets `ARGV[1]` = key prefix and `ARGV[2]` =
 * the calling instance's id, and builds its keys from them (see redis-keys.ts for the layout).
 */
export const PRELUDE = `
local P = ARGV[1]
local ME = ARGV[2]
local function skey(sid) return P .. 's:{' .. sid .. '}' end
local function publish(msg) redis.call('PUBLISH', P .. 'bus', cjson.encode(msg)) end
local function instanceOf(holder) return string.match(holder, '^(%S+)') end
local function seqOf(entryId) return tonumber(string.match(entryId, '^(%d+)')) end
-- The notification log (one stream, entries <n>-0) and its counter: one hash tag, one slot.
local LOG = P .. '{ev}'
local LOGSEQ = P .. '{ev}:n'
local function logHead() return tonumber(redis.call('GET', LOGSEQ) or '0') end

-- true when a live instance holds a standalone stream of the session, false when its holder
-- died, nil when nobody holds one
local function holderAlive(s)
  local holder = redis.call('HGET', s, 'holder')
  if not holder then return nil end
  return redis.call('EXISTS', P .. 'inst:' .. instanceOf(holder)) == 1
end

-- The one end of a session: the record and everything kept for it, then one announcement.
local function endSession(sid, reason)
  local s = skey(sid)
  local existed = redis.call('EXISTS', s) == 1 or redis.call('ZSCORE', P .. 'expiry', sid) ~= false
  local uris = redis.call('SMEMBERS', s .. ':subs')
  for _, uri in ipairs(uris) do redis.call('SREM', P .. 'sub:' .. uri, sid) end
  if #uris > 0 then redis.call('DECRBY', P .. 'subcount', #uris) end
  for _, id in ipairs(redis.call('ZRANGE', s .. ':rs', 0, -1)) do
    redis.call('DEL', s .. ':r:' .. id, s .. ':rm:' .. id)
  end
  redis.call('DEL', s, s .. ':subs', s .. ':out', s .. ':rs', s .. ':rl')
  redis.call('ZREM', P .. 'expiry', sid)
  redis.call('SREM', P .. 'streamed', sid)
  if existed then publish({t = 'end', sid = sid, reason = reason, from = ME}) end
  return existed
end

-- Appends a message for this session alone to its outbox; returns its sequence. The entry
-- records the log's head ('l'), which places it among the log's entries on a replay.
local function append(s, json, maxlen)
  local seq = redis.call('HINCRBY', s, 'seq', 1)
  redis.call('XADD', s .. ':out', 'MAXLEN', maxlen, seq .. '-0', 'j', json, 'l', logHead())
  return seq
end

-- Appends several messages at once (a resync); returns the sequence of the first. Only the last
-- maxlen are written: the outbox keeps no more, so the others would be trimmed at once, and a
-- resume from one of their ids resyncs either way. The writes are bounded by the outbox length.
local function appendAll(s, jsons, maxlen)
  local count = #jsons
  local first = redis.call('HINCRBY', s, 'seq', count) - count + 1
  local head = logHead()
  for i = math.max(1, count - maxlen + 1), count do
    redis.call('XADD', s .. ':out', 'MAXLEN', maxlen, (first + i - 1) .. '-0', 'j', jsons[i], 'l', head)
  end
  return first
end
`;
