/**
 * The event ids of a standalone GET stream: `g:<epoch>-<outbox seq>:<log position>`, where the
 * log position is one sequence per shard of the notification log, joined by `.` (one sequence,
 * as before there were shards, on a single Redis). The epoch is base64url: the last `-<digits>`
 * ends it.
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
 * longer is refused before the pattern runs.
 */
export const MAX_GET_EVENT_ID_LENGTH = 2 + 32 + 1 + 15 + 1 + 64 * 16;

/**
 * Sequences stay at most 15 digits (exact integers, in Lua too), at most 64 of them: an id past
 * these bounds is not one this server issued.
 */
const GET_EVENT_ID = /^g:([A-Za-z0-9_-]{1,32})-(\d{1,15}):(\d{1,15}(?:\.\d{1,15}){0,63})$/;

/**
 * Parses a `Last-Event-ID` for a deployment of `shards` log shards; undefined for an id that is
 * not one of its GET ids (malformed, too long, or of another number of shards): it resyncs.
 */
export function parseGetEventId(id: string, shards: number): GetEventId | undefined {
  if (id.length > MAX_GET_EVENT_ID_LENGTH) return undefined;
  const match = GET_EVENT_ID.exec(id);
  if (!match) return undefined;
  const log = match[3].split('.').map(Number);
  if (log.length !== shards) return undefined;
  return { epoch: match[1], out: Number(match[2]), log };
}

/** A log position as ids and outbox entries carry it. */
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

/** The id of a GET stream's event. */
export function getEventId(epoch: string, out: number, log: LogPosition): string {
  return `g:${epoch}-${out}:${formatLogPosition(log)}`;
}
