import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpParseErrorException } from '../../errors/mcp-protocol.exceptions.js';
import {
  McpPayloadTooLargeException,
  McpUnsupportedMediaTypeException,
} from '../../errors/mcp-transport.exceptions.js';
import { BodyTooLargeError, readRequestBody } from './body-reader.js';
import { decodeJsonText } from '../connection/json-text.js';
import { rejectHttp } from '../connection/http-rejection.js';
import type { McpException } from '../../errors/mcp.exception.js';
import { endAfterBody, LINGER_MS } from './lingering-close.js';
import { isJsonContentType } from './media-type.js';

/** Where the body reader leaves the raw bytes of an MCP POST. */
export const MCP_RAW_BODY = Symbol('mcp:raw-body');

export type McpHttpRequest = IncomingMessage & { [MCP_RAW_BODY]?: Buffer };

/** A parsed POST body; `undefined` when the request was already answered with an error. */
export type JsonPayload = { value: unknown } | undefined;

/**
 * Reads the JSON-RPC payload of a POST: 415 for a non-JSON content type, 413 past the limit,
 * 400 `-32700` for bytes that are not UTF-8 JSON. Uses the bytes the early body reader kept
 * when it ran, and then answers at once (no promise): only a body still to be read is awaited.
 */
export function readJsonPayload(
  req: McpHttpRequest,
  res: ServerResponse,
  maxBytes: number,
  /** Told of each refusal it answered (to count it). */
  onRefused: (exception: McpException) => void = () => undefined,
  /** The body's bytes: the early reader's, or (on the second call) those read late. */
  body: Buffer | undefined = req[MCP_RAW_BODY],
): JsonPayload | Promise<JsonPayload> {
  if (!isJsonContentType(req.headers['content-type'])) {
    const refusal = new McpUnsupportedMediaTypeException();
    rejectHttp(res, refusal);
    onRefused(refusal);
    return undefined;
  }
  if (body === undefined) {
    return readLate(req, res, maxBytes, onRefused).then(
      (read) => read && (readJsonPayload(req, res, maxBytes, onRefused, read) as JsonPayload),
    );
  }
  // Decoded here, not in a helper of its own: one call fewer on every POST.
  const decoded = decodeJsonText(body);
  if (!decoded.ok) {
    const refusal = new McpParseErrorException(decoded.detail);
    rejectHttp(res, refusal);
    onRefused(refusal);
    return undefined;
  }
  return { value: decoded.value };
}

/** Reads the body now: a body already parsed by a framework parser is taken as it is. */
async function readLate(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  onRefused: (exception: McpException) => void,
): Promise<Buffer | undefined> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.readableEnded && parsed !== undefined) return Buffer.from(JSON.stringify(parsed));
  try {
    return await readRequestBody(req, maxBytes);
  } catch (error) {
    const refusal = rejectBody(res, error, maxBytes);
    if (refusal) onRefused(refusal);
    return undefined;
  }
}

/**
 * 413 with a JSON-RPC body; the connection closes once the client has finished sending (or at
 * the linger deadline), so that clients still uploading read the answer. An aborted body just
 * drops the socket. Resolves to the refusal it answered with, if it answered.
 */
export function rejectBody(
  res: ServerResponse,
  error: unknown,
  maxBytes: number,
  lingerMs = LINGER_MS,
): McpException | undefined {
  if (!(error instanceof BodyTooLargeError) || res.headersSent) {
    res.destroy();
    return undefined;
  }
  const refusal = new McpPayloadTooLargeException(maxBytes);
  rejectHttp(res, refusal, null, { end: false });
  endAfterBody(res.req, res, lingerMs);
  return refusal;
}
