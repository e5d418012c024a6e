import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Nest's console logger, with every level on stderr. Nest writes log, warn, debug and verbose
 * to stdout, which would corrupt the JSON-RPC stream of the stdio transport.
 * @publicApi
 */
export class StderrLogger extends ConsoleLogger {
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
