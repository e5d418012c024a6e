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
  readonly httpVersionMajor?: number;
  readonly httpVersionMinor?: number;
  readonly socket?: { readonly remoteAddress?: string; readonly remotePort?: number };
}

const freeze = (attributes: Attributes): Readonly<Attributes> => Object.freeze(attributes);

const STDIO = freeze({ [ATTR_NETWORK_TRANSPORT]: 'pipe' });
const WEBSOCKET = freeze({ [ATTR_NETWORK_TRANSPORT]: 'tcp', [ATTR_NETWORK_PROTOCOL_NAME]: 'websocket' });
const HTTP = freeze({ [ATTR_NETWORK_TRANSPORT]: 'tcp', [ATTR_NETWORK_PROTOCOL_NAME]: 'http' });
/** HTTP with its version, by `major * 10 + minor` (1.0, 1.1, 2.0): made once each. */
const HTTP_VERSIONS = new Map<number, Readonly<Attributes>>();

/**
 * The low-cardinality network attributes of a transport, as the conventions' "Recording MCP
 * transport" table gives them: stdio is a pipe; the others run on TCP, over HTTP or WebSocket.
 * Shared, frozen objects: this runs for every inbound message, and every user copies them.
 */
export function networkAttributes(transport: McpTransportKind, request: unknown): Readonly<Attributes> {
  if (transport === 'stdio') return STDIO;
  if (transport === 'websocket') return WEBSOCKET;
  const peer = request as PeerRequest | undefined;
  const major = peer?.httpVersionMajor;
  const minor = peer?.httpVersionMinor;
  if (typeof major !== 'number' || typeof minor !== 'number' || major > 9 || minor > 9) return HTTP;
  const key = major * 10 + minor;
  let attributes = HTTP_VERSIONS.get(key);
  if (!attributes) {
    attributes = freeze({
      ...HTTP,
      [ATTR_NETWORK_PROTOCOL_VERSION]: minor === 0 && major > 1 ? `${major}` : `${major}.${minor}`,
    });
    HTTP_VERSIONS.set(key, attributes);
  }
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
