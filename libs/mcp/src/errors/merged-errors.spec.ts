/**
 * The errors that were near-twins and are one class now answer exactly as each twin did: the
 * JSON-RPC code, message, data and HTTP status of every case are the wire's contract.
 */
import { describe, expect, it } from '@jest/globals';
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../mcp.constants.js';
import { McpClientUnreachableError } from './client-request.errors.js';
import { McpInvalidMetaException, McpInvalidRequestStateException } from './mcp-modern.exceptions.js';
import { McpInvalidParamsException, McpMethodNotFoundException } from './mcp-protocol.exceptions.js';
import { McpUnsupportedProtocolVersionException } from './mcp-transport.exceptions.js';

describe('McpUnsupportedProtocolVersionException', () => {
  it('answers in the modern form (-32022, supported and requested) when it names the modern versions', () => {
    const error = new McpUnsupportedProtocolVersionException('2025-11-25', MODERN_PROTOCOL_VERSIONS);
    expect(error.httpStatus).toBe(400);
    expect(error.toJsonRpcError()).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: {
        supported: ['2026-07-28'],
        requested: '2025-11-25',
        detail: 'Protocol version "2025-11-25" is not supported; supported: 2026-07-28',
      },
    });
  });

  it('keeps a requested value that is no string as its text, and shows at most 64 characters of it', () => {
    const absent = new McpUnsupportedProtocolVersionException(undefined, MODERN_PROTOCOL_VERSIONS);
    expect(absent.data).toEqual({ supported: ['2026-07-28'], requested: 'undefined' });
    const long = new McpUnsupportedProtocolVersionException('x'.repeat(100), MODERN_PROTOCOL_VERSIONS);
    expect(long.detail).toBe(`Protocol version "${'x'.repeat(64)}" is not supported; supported: 2026-07-28`);
  });

  it('answers in the 2025 form (-32000, supported) when it names the 2025 versions: the header check', () => {
    const error = new McpUnsupportedProtocolVersionException('1999-01-01', SUPPORTED_PROTOCOL_VERSIONS);
    expect(error.httpStatus).toBe(400);
    expect(error.toJsonRpcError()).toEqual({
      code: -32000,
      message: 'Unsupported protocol version',
      data: {
        supported: [...SUPPORTED_PROTOCOL_VERSIONS],
        detail: `MCP-Protocol-Version '1999-01-01' is not supported (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      },
    });
  });
});

describe('McpMethodNotFoundException', () => {
  it('answers in-band by default (the legacy era) and on the status it is given (404 in the modern era)', () => {
    const legacy = new McpMethodNotFoundException('tools/cal');
    expect(legacy.httpStatus).toBeUndefined();
    expect(legacy.toJsonRpcError()).toEqual({
      code: -32601,
      message: 'Method not found',
      data: { detail: "Method 'tools/cal' is not supported" },
    });
    const modern = new McpMethodNotFoundException('initialize', { status: 404 });
    expect(modern.httpStatus).toBe(404);
    expect(modern.toJsonRpcError()).toEqual({
      code: -32601,
      message: 'Method not found',
      data: { detail: "Method 'initialize' is not supported" },
    });
  });

  it('names at most 128 characters of the method', () => {
    expect(new McpMethodNotFoundException('m'.repeat(10_000)).detail).toBe(
      `Method '${'m'.repeat(128)}' is not supported`,
    );
  });
});

describe('the -32602 errors', () => {
  it('are all McpInvalidParamsException, with its code and message', () => {
    const meta = new McpInvalidMetaException("'_meta' is required");
    const state = new McpInvalidRequestStateException('it has expired');
    for (const error of [meta, state]) {
      expect(error).toBeInstanceOf(McpInvalidParamsException);
      expect(error.code).toBe(-32602);
      expect(error.message).toBe('Invalid params');
    }
    expect(meta.httpStatus).toBe(400);
    expect(meta.detail).toBe("'_meta' is required");
    expect(state.httpStatus).toBeUndefined();
    expect(state.detail).toBe('Invalid requestState: it has expired');
  });
});

describe('McpClientUnreachableError', () => {
  it('says which call could not reach the client and why', () => {
    const error = new McpClientUnreachableError('elicitation/create', 'no open channel to the client');
    expect(error.message).toBe('Cannot send elicitation/create to the client: no open channel to the client');
    expect(error.uri).toBeUndefined();
  });

  it('names the resource when a forwarded read made the call', () => {
    const error = new McpClientUnreachableError('ctx.sample', 'it runs elsewhere', 'db://notes/1');
    expect(error.message).toBe("ctx.sample is not available while reading 'db://notes/1': it runs elsewhere");
    expect(error.uri).toBe('db://notes/1');
  });
});
