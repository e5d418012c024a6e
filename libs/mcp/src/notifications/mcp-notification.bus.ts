import type { McpConnection } from '../session/mcp-session.interface.js';

/**
 * Delivers server-initiated messages to sessions' standalone streams. Async, so that a
 * multi-instance implementation (an outbox stream per session plus a pub/sub wake-up) can
 * replace the in-process one without touching transports.
 * @publicApi
 */
export interface McpNotificationBus {
  /** Queues a message for each session (replayable) and sends it on live streams. */
  publish(sessionIds: Iterable<string>, message: object): Promise<number>;
  /** Sends a message to every session that has a live stream. */
  broadcast(message: object): Promise<number>;
  /**
   * Attaches a session's new standalone stream: replays what the session missed after
   * `lastEventId`, or resyncs when that id is unknown, then goes live.
   */
  attach(sessionId: string, connection: McpConnection, lastEventId?: string): Promise<void>;
}

/** DI token of the notification bus. */
export const MCP_NOTIFICATION_BUS = Symbol('MCP_NOTIFICATION_BUS');
