import type { LogLevel } from '@nestjs/common';
import { McpConsoleLogger } from '@app/mcp/logging/mcp-console.logger.js';
import { isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The ids of the span active where a line is logged: ` trace_id=<32 hex> span_id=<16 hex>`, or
 * nothing when no span is active (telemetry off, or code outside any span). A span that was not
 * sampled has ids too, and they are written: they join the line to the request across logs.
 */
export function traceSuffix(): string {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !isSpanContextValid(context)) return '';
  return ` trace_id=${context.traceId} span_id=${context.spanId}`;
}

/** The options of `ConsoleLogger.getJsonLogObject` (a protected method: its type is not reachable by name). */
interface JsonLogOptions {
  context: string;
  logLevel: LogLevel;
  writeStreamType?: 'stdout' | 'stderr';
  errorStack?: unknown;
  params?: Record<string, any>;
  error?: Error;
}

interface JsonLogObject {
  [key: string]: unknown;
  level: LogLevel;
  pid: number;
  timestamp: number;
  message: unknown;
}

/**
 * Nest's console logger, with the active span's trace and span ids at the end of each line (and
 * as `trace_id` / `span_id` fields in JSON mode), so that a log line leads to its trace. Built on
 * the library's `McpConsoleLogger`, so every line it writes has client text escaped onto it and
 * bounded, whoever logged it.
 */
export class TraceConsoleLogger extends McpConsoleLogger {
  protected override formatMessage(
    logLevel: LogLevel,
    message: unknown,
    pidMessage: string,
    formattedLogLevel: string,
    contextMessage: string,
    timestampDiff: string,
    params?: Record<string, any>,
  ): string {
    const line = super.formatMessage(
      logLevel,
      message,
      pidMessage,
      formattedLogLevel,
      contextMessage,
      timestampDiff,
      params,
    );
    const suffix = traceSuffix();
    if (!suffix) return line;
    return line.endsWith('\n') ? `${line.slice(0, -1)}${suffix}\n` : `${line}${suffix}`;
  }

  protected override getJsonLogObject(message: unknown, options: JsonLogOptions): JsonLogObject {
    const object = super.getJsonLogObject(message, options);
    const context = trace.getActiveSpan()?.spanContext();
    if (context && isSpanContextValid(context)) {
      object.trace_id = context.traceId;
      object.span_id = context.spanId;
    }
    return object;
  }
}
