/**
 * Round trips to Redis, counted with MONITOR: the commands clients sent, each script call once
 * (the commands a script runs show up in MONITOR with the source `lua` and are left out), the
 * bench's own and a cluster client's slot-map upkeep left out too.
 *
 * INFO commandstats cannot tell the two apart: it counts every command a script runs, so a
 * request served by one script call of four commands counts four there and one here.
 */
import type { Redis } from 'ioredis';

/** Commands that are the bench's own reading or a cluster client's upkeep, never a request's. */
export const NOT_A_REQUEST = new Set(['info', 'cluster', 'command', 'echo', 'monitor', 'ping', 'readonly']);

/** A marker no library command sends: the end of a counting window on one node. */
const END_MARKER = `bench-monitor-end-${process.pid}`;

/**
 * Runs `during` while MONITOR watches every node in `nodes` (plain connections to each master,
 * duplicated here so their own traffic is not watched), and returns its result with the round
 * trips per command name summed over the nodes. A window ends on a node when a marker sent
 * through that node's connection after `during` comes back through its MONITOR, so every
 * command `during` caused has been seen: no sleeping.
 */
export async function countRoundTrips<T>(
  nodes: readonly Redis[],
  during: () => Promise<T>,
): Promise<{ result: T; trips: Record<string, number> }> {
  const trips: Record<string, number> = {};
  const watchers = await Promise.all(nodes.map((node) => node.duplicate().monitor()));
  try {
    const ends = watchers.map(
      (watcher) =>
        new Promise<void>((resolve) => {
          let counting = true;
          watcher.on('monitor', (_time: string, args: string[], source: string) => {
            if (!counting) return;
            const name = String(args[0] ?? '').toLowerCase();
            if (name === 'echo' && args[1] === END_MARKER) {
              counting = false;
              resolve();
              return;
            }
            if (source === 'lua' || NOT_A_REQUEST.has(name)) return;
            trips[name] = (trips[name] ?? 0) + 1;
          });
        }),
    );
    const result = await during();
    await Promise.all(nodes.map((node) => node.echo(END_MARKER)));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('a MONITOR did not see its end marker within 10 s')), 10_000);
    });
    try {
      await Promise.race([Promise.all(ends), late]);
    } finally {
      clearTimeout(timer);
    }
    return { result, trips };
  } finally {
    for (const watcher of watchers) watcher.disconnect();
  }
}
