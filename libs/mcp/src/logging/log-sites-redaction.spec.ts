/**
 * The module's log lines never carry secrets: an unexpected error whose text holds a bearer token,
 * an Authorization header and a session id (an upstream client's error, say) is logged redacted.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { McpErrorMapper } from '../protocol/mcp-error.mapper.js';
import { McpToolLoggingHook } from '../hooks/mcp-tool-logging.hook.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
const SID = 'Zq3Jk9vX2mP0sT7yB4nL8cW1eR6uA5zQ';
const LEAKY = `upstream failed: GET /api?access_token=${JWT} with headers { authorization: 'Bearer ${JWT}', 'mcp-session-id': '${SID}' } /messages?sessionId=${SID}`;

describe('log lines are redacted', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const captured = (level: 'error' | 'warn') => {
    const lines: string[] = [];
    jest.spyOn(Logger.prototype, level).mockImplementation((message: unknown) => {
      lines.push(String(message));
    });
    return lines;
  };

  it('the error mapper logs unexpected errors without tokens or session ids', () => {
    const lines = captured('error');
    new McpErrorMapper().internal(new Error(LEAKY), 'tools/call leaky');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('upstream failed');
    expect(lines[0]).not.toContain(JWT);
    expect(lines[0]).not.toContain(SID);
  });

  it('the tool logging hook logs failures without them', () => {
    const lines = captured('warn');
    new McpToolLoggingHook().onToolFailed({
      tool: 'leaky',
      arguments: {},
      context: {} as McpRequestContext,
      error: new Error(LEAKY),
      durationMs: 1,
    });
    expect(lines[0]).toContain('leaky failed');
    expect(lines[0]).not.toContain(JWT);
    expect(lines[0]).not.toContain(SID);
  });
});
