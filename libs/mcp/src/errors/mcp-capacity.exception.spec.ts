import { describe, expect, it } from '@jest/globals';
import { refusalReasonOf } from '../protocol/dispatch/refusals.js';
import { McpCapacityException, type McpCapacity } from './mcp-capacity.exception.js';

/** Each bound with how it is answered: JSON-RPC code, HTTP status, message, refusal counted. */
const ANSWERS: [McpCapacity, number, number | undefined, string, string | undefined][] = [
  ['sessions', -32000, 503, 'Too many sessions', 'capacity'],
  ['sessionsPerCaller', -32004, 429, 'Too many sessions', 'rate'],
  ['streamsPerCaller', -32004, 429, 'Too many streams', 'rate'],
  ['requestsInFlight', -32004, undefined, 'Too many requests in flight', 'capacity'],
  ['listens', -32000, 503, 'Too many listens', 'capacity'],
  ['listensPerCaller', -32004, 429, 'Too many listens', 'rate'],
  ['subscriptions', -32000, undefined, 'Too many subscriptions', undefined],
  ['tasksPerCaller', -32004, 429, 'Too many tasks', 'rate'],
  ['taskHandlers', -32000, 503, 'Too many tasks', 'capacity'],
];

describe('McpCapacityException', () => {
  it.each(ANSWERS)('%s: %i over HTTP %s, "%s", counted as %s', (capacity, code, status, message, refusal) => {
    const exception = new McpCapacityException(capacity, 7);
    expect(exception.toJsonRpcError()).toMatchObject({ code, message, data: { limit: 7 } });
    expect(exception.toJsonRpcError().data).toMatchObject({ detail: expect.stringContaining('7') });
    expect(exception.httpStatus).toBe(status);
    if (status !== undefined) expect(exception.httpHeaders).toEqual({ 'Retry-After': '5' });
    expect(refusalReasonOf(exception)).toBe(refusal);
  });

  it('takes a detail of its own, and no limit', () => {
    const exception = new McpCapacityException('taskHandlers', undefined, 'This server instance is shutting down');
    expect(exception.toJsonRpcError()).toMatchObject({
      code: -32000,
      data: { detail: 'This server instance is shutting down' },
    });
    expect(exception.toJsonRpcError().data).not.toHaveProperty('limit');
  });
});
