import { assignMetadata, type PipeTransform, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { McpPrincipal } from '../model/mcp-principal.js';
import { McpParamtype } from './mcp-paramtype.enum.js';

type PipeArg = Type<PipeTransform> | PipeTransform;

const createMcpParamDecorator =
  (paramtype: McpParamtype) =>
  (data?: string, ...pipes: PipeArg[]): ParameterDecorator =>
  (target, key, index) => {
    if (key === undefined) return;
    const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {};
    Reflect.defineMetadata(
      ROUTE_ARGS_METADATA,
      assignMetadata(args, paramtype, index, data, ...pipes),
      target.constructor,
      key,
    );
  };

const argsDecorator = createMcpParamDecorator(McpParamtype.ARGS);

/**
 * Injects the arguments (tool or prompt arguments; `{ uri }` for a resource), or one property of
 * them with `@McpArgs('name')`. Pipes (including a global `ValidationPipe`) apply.
 * @publicApi
 */
export function McpArgs(property?: string, ...pipes: PipeArg[]): ParameterDecorator;
export function McpArgs(...pipes: PipeArg[]): ParameterDecorator;
export function McpArgs(propertyOrPipe?: string | PipeArg, ...pipes: PipeArg[]): ParameterDecorator {
  return typeof propertyOrPipe === 'string' || propertyOrPipe === undefined
    ? argsDecorator(propertyOrPipe, ...pipes)
    : argsDecorator(undefined, propertyOrPipe, ...pipes);
}

/** Injects the `McpRequestContext` of the current request. @publicApi */
export const McpCtx = (): ParameterDecorator => createMcpParamDecorator(McpParamtype.CONTEXT)();
/** Injects the session id (undefined when there is no session). @publicApi */
export const McpSessionId = (): ParameterDecorator => createMcpParamDecorator(McpParamtype.SESSION_ID)();
/** Injects the protocol version of the request. @publicApi */
export const McpProtocolVersionParam = (): ParameterDecorator =>
  createMcpParamDecorator(McpParamtype.PROTOCOL_VERSION)();
/** Injects the transport kind (`streamable-http`, `websocket`, `sse` or `stdio`). @publicApi */
export const McpTransport = (): ParameterDecorator => createMcpParamDecorator(McpParamtype.TRANSPORT)();
/** Injects the raw transport request (the Express request over HTTP). @publicApi */
export const McpRequest = (): ParameterDecorator => createMcpParamDecorator(McpParamtype.REQUEST)();
/** Injects the request's `AbortSignal`. @publicApi */
export const McpSignal = (): ParameterDecorator => createMcpParamDecorator(McpParamtype.SIGNAL)();
/**
 * Injects the caller's principal (`ctx.auth`: issuer, subject, client id, scopes, claims), or one
 * member of it with `@McpAuth('subject')`. `undefined` when authorization is off or the transport
 * is stdio.
 * @publicApi
 */
export const McpAuth = (property?: keyof McpPrincipal): ParameterDecorator =>
  createMcpParamDecorator(McpParamtype.AUTH)(property);
