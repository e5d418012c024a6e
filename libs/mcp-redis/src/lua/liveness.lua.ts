/**
 * Scripts of the instances' liveness, in a slot of their own (`{l}`): each instance's lease
 * (one sorted set `{l}:leases`, member = the instance, score = the end of its lease, so that a
 * script reads any instance's lease through a key it declares), the last beat of any instance
 * and the grace after a gap (see `instanceGone` in lua/prelude). Only the heartbeats and the
 * looks for orphaned tasks touch it (DEAD_INSTANCES), never a request.
 */

/**
 * One heartbeat of the calling instance. KEYS: `{l}:leases`, `{l}:clock`, `{l}:grace`. ARGV:
 * lease ms, gap ms (longer than the instances' interval between beats) → 1. No beat for longer
 * than the gap means that nobody could write (the slot failed over, Redis was down), not that
 * every instance died: every lease gets one more lease's time from now. A lease outlives its end
 * by a day, so that a lease ended during a gap is still read as a lease (and not as an instance
 * never seen); each beat forgets the leases older than that.
 */
export const BEAT = `
local LEASES, CLOCK, GRACE = KEYS[1], KEYS[2], KEYS[3]
local lease, gap = tonumber(ARGV[3]), tonumber(ARGV[4])
local now = redisNow()
local last = tonumber(redis.call('GET', CLOCK) or '0')
if last > 0 and now - last > gap and tonumber(redis.call('GET', GRACE) or '0') < now + lease then
  redis.call('SET', GRACE, now + lease, 'PX', lease)
end
if now > last then redis.call('SET', CLOCK, now) end
redis.call('ZADD', LEASES, now + lease, ME)
redis.call('ZREMRANGEBYSCORE', LEASES, '-inf', now - 86400000)
return 1
`;

/** KEYS: `{l}:leases`, `{l}:clock`, `{l}:grace`. ARGV: the ids of the instances asked about → the ids of those gone. */
export const DEAD_INSTANCES = `
local gone = {}
for i = 3, #ARGV do
  if instanceGone(ARGV[i]) then gone[#gone + 1] = ARGV[i] end
end
return gone
`;

/**
 * KEYS: `{l}:leases`, `{l}:clock`, `{l}:grace`. ARGV: how far back (ms), at most how many → the
 * ids of the instances gone whose lease ended that recently (those the looks for orphans may not
 * have reached yet: task reads fail their tasks, see TASK_GET).
 */
export const RECENTLY_GONE = `
local now = redisNow()
local gone = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[3]), now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  if instanceGone(id) then gone[#gone + 1] = id end
end
return gone
`;
