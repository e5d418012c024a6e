import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { toLogLine, toLogStack } from './log-text.js';

/**
 * Nest's console logger, with every text message passed through `toLogLine` (secrets redacted,
 * CR, LF and other line-bending characters escaped, length bounded) and every stack through
 * `toLogStack`, whoever logs it: the module, Nest itself (an `ExceptionsHandler` line quotes an
 * error's text), the application. A line of a client's text then stays one line of the log.
 * `McpLogger` does the same for the module's lines under any other logger.
 */
export class McpConsoleLogger extends ConsoleLogger {
  protected override formatMessage(
    logLevel: LogLevel,
    message: unknown,
    pidMessage: string,
    formattedLogLevel: string,
    contextMessage: string,
    timestampDiff: string,
    params?: Record<string, any>,
  ): string {
    const safe = typeof message === 'string' ? toLogLine(message) : message;
    return super.formatMessage(logLevel, safe, pidMessage, formattedLogLevel, contextMessage, timestampDiff, params);
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(typeof stack === 'string' ? toLogStack(stack) : stack);
  }

  // JSON mode: JSON escapes C0 controls, but not U+2028, U+2029 or C1 controls; and the bound holds.
  protected override getJsonLogObject(message: unknown, options: Parameters<ConsoleLogger['getJsonLogObject']>[1]) {
    return super.getJsonLogObject(typeof message === 'string' ? toLogLine(message) : message, options);
  }
}
