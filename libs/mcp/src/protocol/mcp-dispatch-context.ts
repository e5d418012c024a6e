import type { McpProtocolVersion } from '../mcp.constants.js';
import type { McpTransportKind } from '../interfaces/mcp-transport.interface.js';
import type { McpSessionRecord } from '../session/mcp-session.interface.js';
import type { JsonRpcMessage } from './json-rpc.js';

/** What a transport tells the dispatcher about one inbound message. */
export interface McpDispatchContext {
  readonly transport: McpTransportKind;
  /** The raw transport request (the Express request over HTTP). */
  readonly request?: unknown;
  /** Whether `initialize` creates a session on this transport. */
  readonly sessionsEnabled: boolean;
  /** The session the message belongs to; `initialize` sets it when it creates one. */
  session?: McpSessionRecord;
  /** The version the client named in its `MCP-Protocol-Version` header, when valid. */
  readonly headerProtocolVersion?: McpProtocolVersion;
  /** Delivers a message related to the request before its response (POST → SSE upgrade). */
  readonly sendRelated?: (message: JsonRpcMessage) => void;
}
