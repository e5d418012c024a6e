import type { ConsoleLoggerOptions, LogLevel } from '@nestjs/common';
import { McpConsoleLogger } from '../../logging/mcp-console.logger.js';

/**
 * Nest's console logger, with every level on stderr and without colour codes. Nest writes log,
 * warn, debug and verbose to stdout, which would corrupt the JSON-RPC stream of the stdio
 * transport; and the stderr of a stdio server usually ends up in the client's log files, where
 * ANSI colour codes are noise, so it is plain even on a terminal. Client text stays on its line
 * (see `McpConsoleLogger`).
 * @param options Nest's console logger options, except `colors`
 * @publicApi
 */
export class StderrLogger extends McpConsoleLogger {
  constructor(options: Omit<ConsoleLoggerOptions, 'colors'> = {}) {
    super({ ...options, colors: false });
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, any>,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}
