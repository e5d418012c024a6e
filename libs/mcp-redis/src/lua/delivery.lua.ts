/** Scripts of fan-out and live streams (ARGV[1] prefix, ARGV[2] instance id, then their own). */

/**
 * One notification to its whole audience, in constant work whatever its size: appended ONCE to
 * the shared notification log (entry `<n>-0`, `n` from the log's counter) and published ONCE on
 * the `bus` channel with its log sequence; each instance writes it to the streams it holds whose
 * sessions subscribed (its own index) and to its modern listeners. Nothing is written per
 * subscriber. ARGV: kind ('u' resource updated, 'l' list changed), target (URI or list kind),
 * JSON, log length (`MAXLEN ~`) → the audience size (subscribers of the URI, or the sessions
 * that hold or held a stream).
 */
export const FANOUT = `
local kind, target, json, loglen = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local n = redis.call('INCR', LOGSEQ)
if n == 1 then
  -- A new counter next to a log that survived it (the counter alone was deleted): continue the log.
  local last = redis.call('XREVRANGE', LOG, '+', '-', 'COUNT', 1)[1]
  if last and seqOf(last[1]) >= n then
    n = seqOf(last[1]) + 1
    redis.call('SET', LOGSEQ, n)
  end
end
redis.call('XADD', LOG, 'MAXLEN', '~', loglen, n .. '-0', 'k', kind, 'x', target, 'j', json)
redis.call('PUBLISH', P .. 'bus', '{"t":"' .. kind .. '","n":' .. n .. ',"x":' .. cjson.encode(target) ..
  ',"from":' .. cjson.encode(ME) .. ',"j":' .. cjson.encode(json) .. '}')
return redis.call('SCARD', (kind == 'u') and (P .. 'sub:' .. target) or (P .. 'streamed'))
`;

/**
 * One message to one session's outbox (a server→client request for a client that reads only
 * its GET stream), published to its holder's instance. ARGV: sid, JSON, outbox length → seq, or
 * 0 when the session has ended or nobody holds its stream (nothing is stored then).
 */
export const SEND = `
local sid, json, maxlen = ARGV[3], ARGV[4], ARGV[5]
local s = skey(sid)
local holder = redis.call('HGET', s, 'holder')
if not holder then return 0 end
local seq = append(s, json, maxlen)
redis.call('PUBLISH', P .. 'to:' .. instanceOf(holder),
  cjson.encode({t = 's', sid = sid, holder = holder, seq = seq, j = json}))
return seq
`;

/**
 * Makes a stream the session's standalone stream and says what to write on it first. The
 * client's last event id `g:<ep>-<out>:<log>` holds two cursors: the session's outbox and the
 * shared log. Replayed: the outbox entries after `out` and the log entries after `log` that
 * concern the session (its URIs, every list change), coalesced (the first of each URI or list
 * is kept), merged in the order they were written (an outbox entry records the log's head).
 * A resync (appended to the outbox, so that it gets ids) replaces the replay when the id is
 * unknown, foreign, beyond what either log still holds, further behind the log's head than the
 * replay window, or followed by more of the session's events than its replay buffer
 * (`replayBufferSize`) keeps. The id is checked against the heads and the log's first entry
 * before anything is read, so whatever id a client sends, the work is bounded by settings, not
 * by the data: at most the outbox length and the replay window are read (`COUNT`), and a resync
 * writes at most the outbox length (plus one `updated` per subscription in its reply, which
 * `maxSubscriptionsPerSession` bounds). The stream it replaces is told to close.
 * ARGV: sid, holder ('<instance> <token>'), last outbox seq ('-' without Last-Event-ID: a fresh
 * stream; '' for an id that is not a g: id: a resync), epoch of the last id, last log seq,
 * outbox length, replay window (log entries), updated-JSON prefix, updated-JSON suffix, then
 * the three list-changed JSONs → 0 when the session has ended, else {epoch, outbox seq, log
 * head, #subs, uri..., then out1, log1, json1, out2, log2, json2, ...}.
 */
export const ATTACH = `
local sid, holder, maxlen, window = ARGV[3], ARGV[4], tonumber(ARGV[8]), tonumber(ARGV[9])
local s = skey(sid)
if redis.call('EXISTS', s) == 0 then return 0 end
local ep = redis.call('HGET', s, 'ep')
local prev = redis.call('HGET', s, 'holder')
redis.call('HSET', s, 'holder', holder)
redis.call('SADD', P .. 'streamed', sid)
redis.call('PEXPIRE', s .. ':out', redis.call('PTTL', s))
local seq = tonumber(redis.call('HGET', s, 'seq') or '0')
local head = logHead()
local subs = redis.call('SMEMBERS', s .. ':subs')
local out = {}
local lastOut, lastLog = tonumber(ARGV[5]), tonumber(ARGV[7])
local replay = ARGV[5] == '-'
if (not replay) and lastOut and lastLog and ARGV[6] == ep and lastOut >= 0 and lastOut <= seq
    and seq - lastOut <= maxlen and lastLog >= 0 and lastLog <= head and head - lastLog <= window then
  replay = true
  local outRows, logRows = {}, {}
  if lastLog < head then
    -- A cursor the log no longer reaches (trimmed, or the log was lost) resyncs unread.
    local first = redis.call('XRANGE', LOG, '-', '+', 'COUNT', 1)[1]
    replay = first ~= nil and seqOf(first[1]) <= lastLog + 1
  end
  if replay and lastOut < seq then
    outRows = redis.call('XRANGE', s .. ':out', '(' .. lastOut .. '-0', '+', 'COUNT', seq - lastOut)
    replay = #outRows > 0 and seqOf(outRows[1][1]) == lastOut + 1
  end
  if replay and lastLog < head then
    logRows = redis.call('XRANGE', LOG, '(' .. lastLog .. '-0', '+', 'COUNT', head - lastLog)
    replay = #logRows > 0 and seqOf(logRows[1][1]) == lastLog + 1
  end
  if replay then
    local subscribed, seen = {}, {}
    for _, uri in ipairs(subs) do subscribed[uri] = true end
    local o, curOut, curLog, matched = 1, lastOut, lastLog, #outRows
    local function outboxUpTo(limit)
      while o <= #outRows and tonumber(outRows[o][2][4] or '0') < limit do
        curOut = seqOf(outRows[o][1])
        out[#out + 1] = curOut
        out[#out + 1] = curLog
        out[#out + 1] = outRows[o][2][2]
        o = o + 1
      end
    end
    for _, row in ipairs(logRows) do
      local n, kind, target = seqOf(row[1]), row[2][2], row[2][4]
      outboxUpTo(n)
      local key = kind .. target
      curLog = n
      local mine = kind == 'l' or subscribed[target]
      if mine then matched = matched + 1 end
      if mine and not seen[key] then
        seen[key] = true
        out[#out + 1] = curOut
        out[#out + 1] = curLog
        out[#out + 1] = row[2][6]
      end
    end
    outboxUpTo(math.huge)
    -- More of the session's events than its replay buffer holds: beyond retention, as with one
    -- outbox per session.
    if matched > maxlen then replay = false end
  end
end
if not replay then
  out = {}
  local resync = {}
  for _, uri in ipairs(subs) do resync[#resync + 1] = ARGV[10] .. cjson.encode(uri) .. ARGV[11] end
  for i = 12, 14 do resync[#resync + 1] = ARGV[i] end
  local first = appendAll(s, resync, maxlen)
  for i, json in ipairs(resync) do
    out[#out + 1] = first + i - 1
    out[#out + 1] = head
    out[#out + 1] = json
  end
end
if prev and prev ~= holder then publish({t = 'replaced', sid = sid, holder = prev, from = ME}) end
local result = {ep, tonumber(redis.call('HGET', s, 'seq')), head, #subs}
for _, uri in ipairs(subs) do result[#result + 1] = uri end
for _, v in ipairs(out) do result[#result + 1] = v end
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
    redis.call('HDEL', s, 'holder')
    redis.call('ZADD', P .. 'expiry', 'XX', now, ARGV[i])
  end
end
return 1
`;

/**
 * The instance's heartbeat: its liveness key, and the keys of the sessions whose streams it
 * holds kept from expiring. ARGV: liveness ms, session ttl ms, then held sids (at most 500 per
 * call) → {log head, then per sid its outbox sequence, or -1 when the session is gone} (the
 * safety poll compares the sequences with what was delivered; a gone session's end was missed,
 * its `end` message lost).
 */
export const HEARTBEAT = `
redis.call('SET', P .. 'inst:' .. ME, '1', 'PX', ARGV[3])
local ttl = ARGV[4]
local seqs = {logHead()}
for i = 5, #ARGV do
  local s = skey(ARGV[i])
  local seq = redis.call('HGET', s, 'seq')
  if seq then
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
