import { jest } from '@jest/globals';
import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  InternalServerErrorException,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
  UnauthorizedException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { McpException } from '../errors/mcp.exception.js';
import { McpInvalidParamsException, McpResourceNotFoundException } from '../errors/mcp-protocol.exceptions.js';
import { McpErrorMapper } from './mcp-error.mapper.js';

const SECRET = 'postgres://admin:hunter2@db.internal:5432/notes';

describe('McpErrorMapper', () => {
  let mapper: McpErrorMapper;
  let logged: jest.SpiedFunction<Logger['error']>;

  beforeEach(() => {
    mapper = new McpErrorMapper();
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  describe('MCP exceptions', () => {
    it('keeps the code, message and data.detail of an McpException', () => {
      const error = mapper.toJsonRpcError(
        new McpException(-32010, 'Quota exceeded', 'Try again tomorrow'),
        'tools/call',
      );

      expect(error).toStrictEqual({ code: -32010, message: 'Quota exceeded', data: { detail: 'Try again tomorrow' } });
      expect(logged).not.toHaveBeenCalled();
    });

    it('keeps the extra data members of a subclass', () => {
      const error = mapper.toJsonRpcError(new McpResourceNotFoundException('db://gone'), 'resources/read');

      expect(error).toStrictEqual({
        code: -32002,
        message: 'Resource not found',
        data: { uri: 'db://gone', detail: "Resource 'db://gone' is not registered" },
      });
    });

    it('passes a handler rejection through as -32602 with its own detail', () => {
      const error = mapper.toJsonRpcError(new McpInvalidParamsException('No notes exist yet'), 'resources/read');

      expect(error).toStrictEqual({ code: -32602, message: 'Invalid params', data: { detail: 'No notes exist yet' } });
    });

    it('omits data when there is no detail', () => {
      expect(mapper.toJsonRpcError(new McpException(-32000, 'Bare'), 'x')).toStrictEqual({
        code: -32000,
        message: 'Bare',
      });
    });
  });

  describe('Nest HTTP exceptions', () => {
    it('maps a ValidationPipe-style BadRequestException to -32602 with the messages joined', () => {
      const validation = new BadRequestException(['title must be a string', 'priority must be an integer']);

      expect(mapper.toJsonRpcError(validation, 'tools/call')).toStrictEqual({
        code: -32602,
        message: 'Invalid params',
        data: { detail: 'title must be a string; priority must be an integer' },
      });
    });

    it('maps a BadRequestException with a plain message to -32602 with that message', () => {
      expect(mapper.toJsonRpcError(new BadRequestException('cursor is stale'), 'x')).toMatchObject({
        code: -32602,
        data: { detail: 'cursor is stale' },
      });
    });

    it.each([
      ['UnauthorizedException', new UnauthorizedException('token expired'), -32005, 'Unauthorized'],
      ['ForbiddenException', new ForbiddenException('admins only'), -32003, 'Forbidden'],
      ['NotFoundException', new NotFoundException('note 7 does not exist'), -32602, 'Invalid params'],
      ['UnprocessableEntityException', new UnprocessableEntityException('bad shape'), -32602, 'Invalid params'],
      ['HttpException 429', new HttpException('slow down', HttpStatus.TOO_MANY_REQUESTS), -32004, 'Too many requests'],
      ['HttpException 409', new HttpException('conflict', HttpStatus.CONFLICT), -32602, 'Invalid params'],
    ])('maps %s to %i, keeping its text as the detail', (_label, exception, code, message) => {
      const error = mapper.toJsonRpcError(exception, 'tools/call');

      expect(error).toStrictEqual({ code, message, data: { detail: exception.message } });
      expect(logged).not.toHaveBeenCalled();
    });

    it('uses a string response body as the detail', () => {
      expect(mapper.toJsonRpcError(new HttpException('teapot', 418), 'x')).toMatchObject({
        code: -32602,
        data: { detail: 'teapot' },
      });
    });
  });

  describe('unexpected errors', () => {
    it.each([
      ['InternalServerErrorException', new InternalServerErrorException(`cannot reach ${SECRET}`)],
      ['ServiceUnavailableException', new ServiceUnavailableException(`cannot reach ${SECRET}`)],
      ['a plain Error', new Error(`cannot reach ${SECRET}`)],
      ['a TypeError', new TypeError(`Cannot read properties of undefined (reading '${SECRET}')`)],
      ['a thrown string', `cannot reach ${SECRET}`],
      ['a thrown object', { reason: `cannot reach ${SECRET}` }],
    ])('maps %s to -32603 with a correlation id, logs it, and never sends its text', (_label, thrown) => {
      const error = mapper.toJsonRpcError(thrown, 'tools/call');

      expect(error).toStrictEqual({
        code: -32603,
        message: 'Internal error',
        data: { correlationId: expect.any(String), detail: expect.any(String) },
      });
      const correlationId = error.data!.correlationId as string;
      expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
      expect(error.data!.detail).toContain(correlationId);
      expect(JSON.stringify(error)).not.toContain('hunter2');
      expect(JSON.stringify(error)).not.toContain('db.internal');

      expect(logged).toHaveBeenCalledTimes(1);
      const line = String(logged.mock.calls[0][0]);
      expect(line).toContain(correlationId);
      expect(line).toContain('tools/call');
      // The text is logged for the operator, with the URL's password redacted.
      if (typeof thrown === 'string' || thrown instanceof Error) expect(line).toContain('db.internal:5432/notes');
      expect(line).not.toContain('hunter2');
    });

    it('gives every failure its own correlation id', () => {
      const first = mapper.toJsonRpcError(new Error('a'), 'x').data!.correlationId;
      const second = mapper.toJsonRpcError(new Error('a'), 'x').data!.correlationId;

      expect(first).not.toBe(second);
      expect(String(logged.mock.calls[0][0])).toContain(String(first));
      expect(String(logged.mock.calls[1][0])).toContain(String(second));
    });

    it('returns the same exception from toException, so callers can rethrow it', () => {
      const original = new McpInvalidParamsException('x');

      expect(mapper.toException(original, 'x')).toBe(original);
    });
  });
});
