/** A log entry with the stamp its writer gave it (see `RedisDelivery.stamp`). */
export interface Stamped {
  /** Microseconds since the epoch, by the writing instance's clock, strictly increasing per instance. */
  readonly stamp: number;
}

/**
 * Takes the entries of several log shards, each shard's in its own order, earliest stamp first
 * among the shards' next entries that `may` allows: the shards' entries merged in the order they
 * were written (exactly for one writer, as its clock says for several), without ever reordering
 * a shard. `next` holds each shard's next index and is advanced.
 */
export function takeByStamp<T extends Stamped>(
  shards: readonly (readonly T[])[],
  next: number[],
  may: (shard: number, entry: T) => boolean,
  take: (shard: number, entry: T) => void,
): void {
  for (;;) {
    let best = -1;
    let bestStamp = Infinity;
    for (let shard = 0; shard < shards.length; shard++) {
      const entry = shards[shard][next[shard]];
      if (entry === undefined || !may(shard, entry)) continue;
      if (best < 0 || entry.stamp < bestStamp) {
        best = shard;
        bestStamp = entry.stamp;
      }
    }
    if (best < 0) return;
    const entry = shards[best][next[best]];
    next[best] += 1;
    take(best, entry);
  }
}
