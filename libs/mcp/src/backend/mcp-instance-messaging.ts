/** Handles one topic's messages from other instances (or this one). @publicApi */
export type McpInstanceMessageHandler = (payload: unknown, from: string) => void;

/**
 * Messages between the instances of one deployment: a backend seam (see `McpBackend`). The core
 * routes through it what only the instance that holds some state can act on: a client's answer
 * to a server→client request (held by the instance that asked) and `notifications/cancelled`
 * (acted on by the instance that runs the request). Delivery is best effort: a message to an
 * instance that died is lost, as its state is.
 *
 * The in-memory backend has one instance, so messages to it are delivered in process and
 * broadcasts reach nobody; a shared backend (Redis pub/sub) reaches the other instances.
 * @publicApi
 */
export interface McpInstanceMessaging {
  /** This instance's id: unique among the live instances, visible ASCII without spaces. */
  readonly instanceId: string;
  /**
   * Sends `payload` (JSON-serializable) under `topic` to the instance `target`, or to every
   * other instance when `target` is `'*'`. Never throws: a failure is logged and the message
   * dropped.
   */
  send(target: string, topic: string, payload: unknown): void;
  /** Registers the handler of `topic` on this instance (one per topic). */
  on(topic: string, handler: McpInstanceMessageHandler): void;
  /**
   * Which of `instanceIds` are gone: their liveness lapsed (a crash, `kill -9`, a lost network)
   * or they never were. What such an instance announced (its runtime resources) is dropped.
   * Optional: a backend without it (one instance) keeps everything; a rejection (the backend is
   * unreachable) decides nothing.
   */
  deadInstances?(instanceIds: readonly string[]): Promise<string[]>;
}

/** The broadcast target of `McpInstanceMessaging.send`: every instance but the sender. @publicApi */
export const MCP_ALL_INSTANCES = '*';
