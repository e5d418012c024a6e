/**
 * Lua shared by every script: key names, the one `end` of a session, the outbox append and the
 * liveness check of a stream holder. Every script gets `ARGV[1]` = key prefix and `ARGV[2]` =
 * the calling instance's id, and names the key of its slot first (`KEYS[1]`): a session script
 * the bucket key `x:{b<n>}`, whose hash tag every key it builds carries, so that on a Redis
 * Cluster the script touches one slot (see redis-keys.ts for the layout).
 */
const PRELUDE = `
local P = ARGV[1]
local ME = ARGV[2]
-- On a Redis Cluster (set when the scripts are defined): scripts declare every key they touch.
local CLUSTERED = %CLUSTERED%
-- The session bucket this script works in (the hash tag of KEYS[1]; nil for other slots).
local BT = KEYS[1] and string.match(KEYS[1], '{([^}]*)}')
local EXPIRY = P .. 'x:{' .. (BT or '') .. '}'
local SUBCOUNT = P .. 'sc:{' .. (BT or '') .. '}'
local ENDS = P .. 'e:{' .. (BT or '') .. '}'
local function skey(sid) return P .. 's:{' .. BT .. '}:' .. sid end
local function instanceOf(holder) return string.match(holder, '^(%S+)') end
-- PUBLISH on one Redis, SPUBLISH on a cluster (set when the scripts are defined): the channel
-- of an instance in this bucket shares the bucket's slot, as a script's sharded channel must.
local PUB = '%PUBLISH%'
local function publishTo(instance, payload)
  redis.call(PUB, P .. 'to:{' .. BT .. '}:' .. instance, payload)
end
local function seqOf(entryId) return tonumber(string.match(entryId, '^(%d+)')) end
-- Redis's own clock (ms): holders' leases are written and read on one clock, whatever the
-- instances' clocks say.
local function redisNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Whether an instance is gone (crashed, cut off): its lease, renewed by its heartbeat (its score in
-- the sorted set '{l}:leases': its end in Redis time), ended, and no grace runs. A lease also ends
-- when nobody could renew it:
-- while the leases' slot failed over (its master killed, its replica not elected yet), every
-- heartbeat failed, and the promoted replica finds every lease ended. The first beat after such a
-- gap grants a grace of one lease ('{l}:grace'), and until that beat the last one ('{l}:clock')
-- is older than the lease's end: an instance counts as gone only once others have beaten after
-- its lease ended, and it has had a lease's time to beat too.
local function instanceGone(id)
  local now = redisNow()
  local leaseEnd = tonumber(redis.call('ZSCORE', P .. '{l}:leases', id) or '0')
  if leaseEnd >= now then return false end
  if tonumber(redis.call('GET', P .. '{l}:clock') or '0') < leaseEnd then return false end
  return tonumber(redis.call('GET', P .. '{l}:grace') or '0') < now
end

-- true when a live instance holds a standalone stream of the session (its heartbeat renewed
-- the lease lately), false when its holder stopped proving it lives, nil when nobody holds one
local function holderAlive(s)
  local holder = redis.call('HGET', s, 'holder')
  if not holder then return nil end
  return tonumber(redis.call('HGET', s, 'hl') or '0') >= redisNow()
end

-- On a cluster, keys a script finds only by reading another key are asked for before the script
-- writes anything: it answers {ASKING, n, key1..keyn} and the caller runs it again with them
-- declared (see asked-keys.ts). A session script finds so the POST-stream logs of a session, ids
-- in its index 's:<sid>:rs' (DECLARED: the script's KEYS, on a cluster only).
local ASKING = 'asking'
local DECLARED = {}
if CLUSTERED then
  for _, declared in ipairs(KEYS) do DECLARED[declared] = true end
end
local MISSING, WANTED = {}, {}
local function want(key)
  if CLUSTERED and not DECLARED[key] and not WANTED[key] then
    WANTED[key] = true
    MISSING[#MISSING + 1] = key
  end
end
local function ready() return #MISSING == 0 end
local function asking()
  local out = { ASKING, #MISSING }
  for _, key in ipairs(MISSING) do out[#out + 1] = key end
  return out
end
-- Asks for the keys of a session's POST-stream logs a script deletes: those of ids, or all of them.
local function wantPostLogs(s, ids)
  if not CLUSTERED then return end
  for _, id in ipairs(ids or redis.call('ZRANGE', s .. ':rs', 0, -1)) do
    want(s .. ':r:' .. id)
    want(s .. ':rm:' .. id)
  end
end

-- Deletes one POST-stream log. On a cluster its keys were asked for first (wantPostLogs): one
-- not declared is a bug (the cluster could not check it before the script ran, and while its
-- slot migrates the script would stop there, half way), and stops the script.
local function dropPostLog(s, id)
  local log, meta = s .. ':r:' .. id, s .. ':rm:' .. id
  if CLUSTERED and not (DECLARED[log] and DECLARED[meta]) then
    error('session script touched an undeclared key: ' .. log)
  end
  redis.call('DEL', log, meta)
end

-- The one end of a session in its bucket: the record and everything kept for it (on a cluster,
-- its POST-stream logs asked for first: wantPostLogs, then ready). What lies
-- outside the bucket (the URIs' audiences, the list audience, the session cap, the end message)
-- is queued in the bucket's ends list in the same step, and done by the caller (or, when the
-- caller died meanwhile, by the next sweep): nothing is lost when a step fails.
local function endSession(sid, reason)
  local s = skey(sid)
  local existed = redis.call('EXISTS', s) == 1 or redis.call('ZSCORE', EXPIRY, sid) ~= false
  for _, id in ipairs(redis.call('ZRANGE', s .. ':rs', 0, -1)) do
    dropPostLog(s, id)
  end
  local uris = redis.call('SMEMBERS', s .. ':subs')
  if #uris > 0 then redis.call('DECRBY', SUBCOUNT, #uris) end
  redis.call('DEL', s, s .. ':subs', s .. ':out', s .. ':rs', s .. ':rl')
  redis.call('ZREM', EXPIRY, sid)
  if not existed then return false end
  local entry = cjson.encode({sid = sid, reason = reason, uris = uris, from = ME})
  redis.call('RPUSH', ENDS, entry)
  return entry
end

-- Appends a message for this session alone to its outbox; returns its sequence. The entry
-- records the log's heads as the writer knew them ('l', one per log shard joined by '.'), which
-- places it among the log's entries on a replay.
local function append(s, json, maxlen, head)
  local seq = redis.call('HINCRBY', s, 'seq', 1)
  redis.call('XADD', s .. ':out', 'MAXLEN', maxlen, seq .. '-0', 'j', json, 'l', head)
  return seq
end

-- Appends several messages at once (a resync); returns the sequence of the first. Only the last
-- maxlen are written: the outbox keeps no more, so the others would be trimmed at once, and a
-- resume from one of their ids resyncs either way. The writes are bounded by the outbox length.
local function appendAll(s, jsons, maxlen, head)
  local count = #jsons
  local first = redis.call('HINCRBY', s, 'seq', count) - count + 1
  for i = math.max(1, count - maxlen + 1), count do
    redis.call('XADD', s .. ':out', 'MAXLEN', maxlen, (first + i - 1) .. '-0', 'j', jsons[i], 'l', head)
  end
  return first
end
`;

/**
 * The prelude of the scripts on a Redis Cluster (SPUBLISH on its sharded channels, every key a
 * script touches declared) or on one Redis (PUBLISH).
 */
export function preludeFor(sharded: boolean): string {
  return PRELUDE.replace('%PUBLISH%', sharded ? 'SPUBLISH' : 'PUBLISH').replace('%CLUSTERED%', String(sharded));
}
