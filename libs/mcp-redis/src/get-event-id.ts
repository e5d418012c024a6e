/**
 * The event ids of a standalone GET stream. With one log shard (a single Redis):
 * `g:<epoch>-<outbox seq>:<log seq>`, as before there were shards. With several:
 * `g:<epoch>-<outbox seq>_<seq in shard 0>_…_<seq in shard N-1>:<total>`, where the total is the
 * outbox sequence plus every shard's: it grows with every event of the stream, as the last part
 * of an event id does with one log, and an id whose total does not add up is not one we issued.
 * The epoch is base64url: the last `-<digits>` before the positions ends it.
 */

/** The positions of a stream in the log's shards, shard 0 first. */
export type LogPosition = readonly number[];

/** A parsed GET event id. */
export interface GetEventId {
  readonly epoch: string;
  readonly out: number;
  readonly log: LogPosition;
}

/**
 * The longest id one of our streams issues (with the most shards, see MAX_LOG_SHARDS): anything
 * longer is refused before a pattern runs.
 */
export const MAX_GET_EVENT_ID_LENGTH = 2 + 32 + 1 + 15 + 64 * 16 + 1 + 17;

/**
 * Sequences stay at most 15 digits (exact integers, in Lua too), at most 64 of them: an id past
 * these bounds is not one this server issued.
 */
const ONE_LOG_ID = /^g:([A-Za-z0-9_-]{1,32})-(\d{1,15}):(\d{1,15})$/;
const SHARDED_ID = /^g:([A-Za-z0-9_-]{1,32})-(\d{1,15})((?:_\d{1,15}){2,64}):(\d{1,17})$/;

/**
 * Parses a `Last-Event-ID` for a deployment of `shards` log shards; undefined for an id that is
 * not one of its GET ids (malformed, too long, of another number of shards, or whose total does
 * not add up): it resyncs.
 */
export function parseGetEventId(id: string, shards: number): GetEventId | undefined {
  if (id.length > MAX_GET_EVENT_ID_LENGTH) return undefined;
  if (shards === 1) {
    const match = ONE_LOG_ID.exec(id);
    return match ? { epoch: match[1], out: Number(match[2]), log: [Number(match[3])] } : undefined;
  }
  const match = SHARDED_ID.exec(id);
  if (!match) return undefined;
  const out = Number(match[2]);
  const log = match[3].slice(1).split('_').map(Number);
  if (log.length !== shards) return undefined;
  const total = log.reduce((sum, n) => sum + n, out);
  if (!Number.isSafeInteger(total) || total !== Number(match[4])) return undefined;
  return { epoch: match[1], out, log };
}

/** The id of a GET stream's event. */
export function getEventId(epoch: string, out: number, log: LogPosition): string {
  if (log.length === 1) return `g:${epoch}-${out}:${log[0]}`;
  let total = out;
  for (const n of log) total += n;
  return `g:${epoch}-${out}_${log.join('_')}:${total}`;
}

/** A log position as outbox entries record it (one sequence per shard, joined by `.`). */
export function formatLogPosition(log: LogPosition): string {
  return log.length === 1 ? String(log[0]) : log.join('.');
}

/**
 * The log position an outbox entry recorded (its writer's view of the heads); positions it
 * lacks (written with fewer shards) count as 0, so the entry is placed before those shards' entries.
 */
export function parseLogPosition(text: string, shards: number): number[] {
  const parts = text.split('.', shards);
  return Array.from({ length: shards }, (_, k) => {
    const n = Number(parts[k]);
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  });
}
