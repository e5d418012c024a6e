import { Logger } from '@nestjs/common';
import { toLogLine, toLogStack } from './log-text.js';

/**
 * Nest's `Logger` for the module's own lines: every message goes through `toLogLine` (secrets
 * redacted, CR, LF and other line-bending characters escaped, length bounded), and a stack
 * through `toLogStack`, before it reaches the application's logger. Log lines carry client text
 * (request ids, tool names, errors a tool threw with a client's input in them), and whatever
 * logger the application plugged in, a client must not be able to forge a line with a newline or
 * fill the log with one request. Exported from `@nest-mcp/server/backend` for a backend's lines.
 * @publicApi
 */
export class McpLogger extends Logger {
  override log(message: unknown, ...params: unknown[]): void {
    super.log(safe(message), ...params);
  }

  override warn(message: unknown, ...params: unknown[]): void {
    super.warn(safe(message), ...params);
  }

  override debug(message: unknown, ...params: unknown[]): void {
    super.debug(safe(message), ...params);
  }

  override verbose(message: unknown, ...params: unknown[]): void {
    super.verbose(safe(message), ...params);
  }

  override fatal(message: unknown, ...params: unknown[]): void {
    super.fatal(safe(message), ...params);
  }

  /** `error(message, stack?)`: the stack, when given, keeps its frames on their own lines. */
  override error(message: unknown, ...params: unknown[]): void {
    const [stack, ...rest] = params;
    if (typeof stack === 'string') {
      super.error(safe(message), toLogStack(stack), ...rest);
    } else super.error(safe(message), ...params);
  }
}

/** Strings go through `toLogLine`; anything else is left to the application's logger to format. */
function safe(message: unknown): unknown {
  return typeof message === 'string' ? toLogLine(message) : message;
}
