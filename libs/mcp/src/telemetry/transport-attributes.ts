import type { Attributes } from '@opentelemetry/api';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_CLIENT_PORT,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
} from './semconv.js';

/** The parts of a Node HTTP request (or WebSocket upgrade request) the attributes read. */
interface PeerRequest {
  readonly httpVersion?: string;
  readonly socket?: { readonly remoteAddress?: string; readonly remotePort?: number };
}

/**
 * The low-cardinality network attributes of a transport, as the conventions' "Recording MCP
 * transport" table gives them: stdio is a pipe; the others run on TCP, over HTTP or WebSocket.
 */
export function networkAttributes(transport: McpTransportKind, request: unknown): Attributes {
  if (transport === 'stdio') return { [ATTR_NETWORK_TRANSPORT]: 'pipe' };
  const attributes: Attributes = {
    [ATTR_NETWORK_TRANSPORT]: 'tcp',
    [ATTR_NETWORK_PROTOCOL_NAME]: transport === 'websocket' ? 'websocket' : 'http',
  };
  const version = (request as PeerRequest | undefined)?.httpVersion;
  if (transport !== 'websocket' && typeof version === 'string') attributes[ATTR_NETWORK_PROTOCOL_VERSION] = version;
  return attributes;
}

/**
 * The peer's address and port (spans only: they are high-cardinality). The socket's peer, not a
 * forwarded header: a header is the client's word, the socket is not.
 */
export function clientAttributes(request: unknown): Attributes | undefined {
  const socket = (request as PeerRequest | undefined)?.socket;
  if (!socket?.remoteAddress) return undefined;
  return socket.remotePort === undefined
    ? { [ATTR_CLIENT_ADDRESS]: socket.remoteAddress }
    : { [ATTR_CLIENT_ADDRESS]: socket.remoteAddress, [ATTR_CLIENT_PORT]: socket.remotePort };
}
