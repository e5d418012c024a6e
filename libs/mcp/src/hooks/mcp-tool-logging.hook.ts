import { Injectable, Logger } from '@nestjs/common';
import { McpToolHook } from './mcp-tool-hook.decorator.js';
import type {
  McpToolCompletedEvent,
  McpToolFailedEvent,
  McpToolHookHandler,
  McpToolInvokingEvent,
} from './mcp-tool-hook.interface.js';

/**
 * Logs every tool call: start at debug, success at log, failure at warn, with the duration.
 * Arguments and results are not logged (they may hold personal data). Add it to `providers`.
 * @publicApi
 */
@McpToolHook()
@Injectable()
export class McpToolLoggingHook implements McpToolHookHandler {
  private readonly logger = new Logger('McpTools');

  onToolInvoking({ tool, context }: McpToolInvokingEvent): void {
    this.logger.debug(`${tool} invoked (request ${String(context.requestId)}, ${context.transport})`);
  }

  onToolCompleted({ tool, durationMs }: McpToolCompletedEvent): void {
    this.logger.log(`${tool} completed in ${durationMs.toFixed(1)} ms`);
  }

  onToolFailed({ tool, durationMs, error }: McpToolFailedEvent): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`${tool} failed in ${durationMs.toFixed(1)} ms: ${reason}`);
  }
}
