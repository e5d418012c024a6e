import { McpBackendUnavailableError } from '@nest-mcp/server/backend';

/** How a script that may ask for keys is run (see `runAskingForKeys`). */
export interface AskedKeysCall {
  /** The first element of a reply that asks for keys: `[marker, n, key1..keyn, partial...]`. */
  readonly marker: number | string;
  /** Calls at most: each after the first declares keys the one before asked for. */
  readonly maxCalls: number;
  /** What the last call throws when the script still asks (what the script read changed under every call). */
  readonly exhausted: string;
  /** Gathers what each asking reply did before it asked (after its keys), when the script says so. */
  readonly partial?: string[];
  /**
   * Numbers every asking reply carries between the marker and the key count (`[marker,
   * ...totals, n, keys…]`), added up here over the calls: what the script changed before it
   * asked (the task store's counter changes).
   */
  readonly totals?: number[];
  /** Runs before the exhausted error is thrown (the task store gives back what the calls took). */
  readonly onExhausted?: () => Promise<void>;
}

/**
 * Runs a script that, on a Redis Cluster, may find keys it touches only by reading others (so
 * that no caller can declare them beforehand). Such a script asks for them before it writes
 * anything that depends on them, answering `[marker, n, key1..keyn, partial...]`; it is run again
 * with them declared too, until it answers or `maxCalls` calls were made (the keys it read
 * changed meanwhile each time): then the backend's 503 error. On one Redis no script asks: one
 * call.
 */
export async function runAskingForKeys<T>(
  run: (keys: readonly string[]) => Promise<unknown>,
  declared: readonly string[],
  how: AskedKeysCall,
): Promise<T> {
  let keys = declared;
  for (let calls = 1; ; calls++) {
    const reply = await run(keys);
    if (!Array.isArray(reply) || reply[0] !== how.marker) return reply as T;
    const totals = how.totals ?? [];
    for (let n = 0; n < totals.length; n++) totals[n] += Number(reply[1 + n]);
    const at = 1 + totals.length;
    const count = Number(reply[at]);
    const asked = (reply as string[]).slice(at + 1, at + 1 + count);
    how.partial?.push(...(reply as string[]).slice(at + 1 + count));
    if (calls === how.maxCalls) {
      await how.onExhausted?.();
      throw new McpBackendUnavailableError(how.exhausted);
    }
    keys = [...new Set([...keys, ...asked])];
  }
}

/**
 * A session script that finds POST-stream logs to delete in a session's index (`s:<sid>:rs`, see
 * `wantPostLogs` in lua/prelude): an end, a lookup or a sweep that ends sessions, an open that
 * trims the oldest logs. Each call after the first is needed only when logs were opened or
 * trimmed between the two (a session keeps at most 16).
 */
export const POST_LOGS_ASKED: AskedKeysCall = {
  marker: 'asking',
  maxCalls: 8,
  exhausted: "The session's POST-stream logs changed under every attempt: retry",
};
