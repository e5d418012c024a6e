import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';

/** The Nest HTTP platforms the HTTP transports run on. */
export type McpHttpPlatformName = 'express' | 'fastify';

/**
 * Reads the body of a POST to one of the MCP paths ahead of the framework (`transport`: the one
 * its path serves), and calls `next` once it holds the bytes; `refused` once it has answered the
 * request itself (a foreign origin, a body past the limit, an aborted upload).
 * (`McpHttpHandler.readBody`, bound, takes its arguments in this order.)
 */
export type McpEarlyBodyReader = (
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
  transport: McpTransportKind,
  refused: () => void,
) => void;

/**
 * What the HTTP transports need of the framework under them. The transports themselves only
 * frame bytes on Node's own request and response; the platform is where Express and Fastify
 * differ: what a controller's `@Req()` and `@Res()` are, and how to read a body before the
 * framework's parsers do.
 */
export interface McpHttpPlatform {
  readonly name: McpHttpPlatformName;
  /**
   * True when a controller's `@Req()` and `@Res()` are Node's own request and response
   * (Express's, extended): then they are handed on as they are, without asking `request` and
   * `response`.
   */
  readonly nodeObjects: boolean;
  /** Node's request under what a controller's `@Req()` received. */
  request(req: unknown): IncomingMessage;
  /**
   * Node's response under what a controller's `@Res()` received, taken over by the transport:
   * from here on it writes the response itself (streams with back-pressure, nothing buffered
   * by the framework).
   */
  response(res: unknown): ServerResponse;
  /**
   * Puts `reader` ahead of the framework's body parsing for the POSTs to `paths` (each normalized,
   * with the transport it serves), so that the framework's own limit and parsers never answer in
   * place of the transport.
   */
  readBodiesFirst(paths: ReadonlyMap<string, McpTransportKind>, reader: McpEarlyBodyReader): void;
  /**
   * Lets go of what the framework keeps per request and needs no more once the transport holds
   * the response open as an event stream it writes itself (`req`/`res`: what the controller
   * received). A stream lives for as long as the client stays, so whatever hangs off its request
   * is memory held per session. Nothing another middleware or hook may still read goes.
   */
  releaseHeld(req: unknown, res: unknown): void;
  /** Hears every request the framework routed to an MCP controller (`req`/`res`: what it received). */
  routed(req: unknown, res: unknown): void;
}

/**
 * Once `answered` settles, lets `platform` go of its per-request state if the response is still
 * open: an event stream holds it (`McpHttpPlatform.releaseHeld`). `request` and `response` are
 * what the controller received, `res` Node's response under them.
 */
export async function releaseWhenHeld(
  platform: McpHttpPlatform,
  answered: Promise<void>,
  request: unknown,
  response: unknown,
  res: ServerResponse,
): Promise<void> {
  await answered;
  if (res.headersSent && !res.writableEnded) platform.releaseHeld(request, response);
}
