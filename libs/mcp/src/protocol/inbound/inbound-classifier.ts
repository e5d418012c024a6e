import { Injectable } from '@nestjs/common';
import { McpInvalidRequestException } from '../../errors/mcp-protocol.exceptions.js';
import { McpModernEraDisabledException } from '../../errors/mcp-modern.exceptions.js';
import { McpUnsupportedProtocolVersionException } from '../../errors/mcp-transport.exceptions.js';
import { McpException } from '../../errors/mcp.exception.js';
import { MODERN_PROTOCOL_VERSIONS, PROTOCOL_VERSION_HEADER } from '../../mcp.constants.js';
import {
  classifyMessage,
  isValidId,
  MAX_METHOD_LENGTH,
  type JsonRpcId,
  type JsonRpcNotification,
} from '../../model/json-rpc.js';
import { McpToolRegistry } from '../../registry/mcp-tool.registry.js';
import type { Inbound, InboundFrame, InboundMessage } from './inbound.js';
import { isModernMessage, readModernEnvelope } from './modern-envelope.js';
import { checkModernHeaders } from './modern-headers.js';
import { isObject } from '../../model/is-object.js';
import { isModernProtocolVersion } from '../../model/protocol-version.js';

/**
 * The method a message names, when it names one of a length a method can have (for the log line
 * and the span of a refusal; a longer one was refused for its length and is named by nothing).
 */
const methodOf = (value: unknown): string | undefined =>
  isObject(value) && typeof value.method === 'string' && value.method.length <= MAX_METHOD_LENGTH
    ? value.method
    : undefined;

/**
 * The one place where an inbound frame is classified, for every transport (Streamable HTTP,
 * legacy HTTP+SSE, WebSocket, stdio) and every element of a batch: JSON-RPC framing, the era that
 * serves each message, and for a modern request its envelope and header cross-check, in the order
 * the MCP 2026-07-28 conformance suite asks (`_meta` fields, then headers, then the version).
 * Whatever does not hold becomes an `invalid` message carrying the exception to answer with; the
 * dispatcher then works on typed messages and never asks which era a message is again.
 */
@Injectable()
export class McpInboundClassifier {
  constructor(private readonly tools: McpToolRegistry) {}

  /**
   * A single message is modern when the endpoint serves only the modern era, or the message says
   * so: its `_meta` protocol version, `server/discover`, or a modern `MCP-Protocol-Version`
   * header. The header is not read on `initialize`, where the version is negotiated: a modern
   * header does not make an `initialize` modern.
   */
  classify(payload: unknown, frame: InboundFrame): Inbound {
    if (Array.isArray(payload)) return this.batch(payload, frame);
    if (frame.eras !== 'modern') {
      // `initialize` only where a method can be read (an object's; a primitive has none).
      const initialize = (payload as { method?: unknown } | null | undefined)?.method === 'initialize';
      const header = frame.headers && !initialize ? frame.headers[PROTOCOL_VERSION_HEADER] : undefined;
      if (!isModernMessage(payload, header)) return { kind: 'single', era: 'legacy', message: legacy(payload) };
    }
    return { kind: 'single', era: 'modern', message: this.modern(payload, frame) };
  }

  /**
   * A batch is legacy by definition (MCP 2026-07-28 has none, 2025-06-18 removed them): refused
   * whole where the frame is modern, and each element written for the modern era is refused on
   * its own, never run, since it would skip the header checks a modern request gets alone.
   */
  private batch(items: unknown[], frame: InboundFrame): Inbound {
    // (A modern MCP-Protocol-Version on a batch is the HTTP transport's to refuse: no legacy
    // session speaks that version.)
    if (frame.eras === 'modern') {
      const detail = 'JSON-RPC batches do not exist in MCP 2026-07-28: send one request per message';
      return { kind: 'refused', era: 'modern', error: new McpInvalidRequestException(detail) };
    }
    return { kind: 'batch', era: 'legacy', elements: items.map(batchElement) };
  }

  private modern(value: unknown, frame: InboundFrame): InboundMessage {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'invalid':
        return invalid(classified.id, new McpInvalidRequestException(classified.detail), value);
      case 'response':
        return { kind: 'response', response: classified.message };
      case 'notification':
        return { kind: 'notification', era: 'modern', notification: classified.message };
      case 'request': {
        const request = classified.message;
        // The checked envelope of a modern request; whatever does not hold is the refusal that answers it.
        try {
          if (frame.eras === 'legacy') throw new McpModernEraDisabledException();
          if (request.method === 'initialize' && !isModernMessage(request)) {
            // A legacy client of a modern-only endpoint: named versions are the only diagnostic it can show.
            throw new McpUnsupportedProtocolVersionException(request.params?.protocolVersion, MODERN_PROTOCOL_VERSIONS);
          }
          // Params that are no object are refused here too ("A modern request needs 'params' with '_meta'").
          const envelope = readModernEnvelope(request.params);
          if (frame.headers) checkModernHeaders(frame.headers, request, envelope, this.tools);
          if (!isModernProtocolVersion(envelope.protocolVersion)) {
            throw new McpUnsupportedProtocolVersionException(envelope.protocolVersion, MODERN_PROTOCOL_VERSIONS);
          }
          return { kind: 'request', era: 'modern', request, envelope };
        } catch (error) {
          if (error instanceof McpException) return invalid(request.id, error, request);
          throw error;
        }
      }
    }
  }
}

/** A message of the legacy era: JSON-RPC framing only (sessions and versions come later). */
function legacy(value: unknown): InboundMessage {
  const classified = classifyMessage(value);
  switch (classified.kind) {
    case 'invalid':
      return invalid(classified.id, new McpInvalidRequestException(classified.detail), value);
    case 'request':
      return { kind: 'request', era: 'legacy', request: classified.message };
    case 'notification':
      return { kind: 'notification', era: 'legacy', notification: classified.message };
    case 'response':
      return { kind: 'response', response: classified.message };
  }
}

/** One element of a batch: legacy, unless it was written for the modern era (then refused, or dropped if a notification). */
function batchElement(value: unknown): InboundMessage {
  if (!isModernMessage(value)) return legacy(value);
  // Without an id there is nothing to answer: the dispatcher drops it.
  if (!Object.hasOwn(value as object, 'id')) {
    return { kind: 'notification', era: 'modern', notification: value as JsonRpcNotification };
  }
  const id = (value as { id?: unknown }).id;
  const error = new McpInvalidRequestException(
    'A 2026-07-28 request cannot be part of a JSON-RPC batch: send it on its own',
  );
  return invalid(isValidId(id) ? id : null, error, value, 'era');
}

function invalid(id: JsonRpcId | null, error: McpException, value: unknown, refusal?: 'era'): InboundMessage {
  const method = methodOf(value);
  const message =
    method === undefined ? { kind: 'invalid' as const, id, error } : { kind: 'invalid' as const, id, error, method };
  return refusal === undefined ? message : { ...message, refusal };
}
