/**
 * Sessions per script call at most, for every script that takes a list of sessions (lookups,
 * heartbeat, subscriptions read again, releases): a longer list is sent as several calls, so no
 * single script holds Redis up for long. Calls made in one turn still leave in one socket write
 * (see TurnBatchedRedis).
 */
export const MAX_SESSIONS_PER_CALL = 500;

/** `items` cut into consecutive batches of at most `size`; no batch for no items. */
export function inBatches<T>(items: readonly T[], size: number = MAX_SESSIONS_PER_CALL): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
