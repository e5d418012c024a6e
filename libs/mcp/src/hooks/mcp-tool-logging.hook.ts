import { Injectable } from '@nestjs/common';
import { McpToolHook } from './mcp-tool-hook.decorator.js';
import type {
  McpToolCompletedEvent,
  McpToolFailedEvent,
  McpToolHookHandler,
  McpToolRejectedEvent,
} from './mcp-tool-hook.interface.js';
import { McpLogger } from '../logging/mcp-logger.js';

/**
 * Logs each tool call once, when it ends: a success at debug, a failure or a rejection (unknown
 * tool, missing scope, rate limit, invalid arguments) at warn, with the duration, the request id
 * and the transport. Arguments and results are never logged (they may
 * hold personal data). Add it to `providers`.
 * @publicApi
 */
@McpToolHook()
@Injectable()
export class McpToolLoggingHook implements McpToolHookHandler {
  private readonly logger = new McpLogger('McpTools');

  onToolCompleted({ tool, durationMs, context }: McpToolCompletedEvent): void {
    this.logger.debug(`${tool} completed in ${durationMs.toFixed(1)} ms ${describeCall(context)}`);
  }

  onToolFailed({ tool, durationMs, error, context }: McpToolFailedEvent): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`${tool} failed in ${durationMs.toFixed(1)} ms ${describeCall(context)}: ${reason}`);
  }

  onToolRejected({ tool, reason, error, context }: McpToolRejectedEvent): void {
    const detail = error instanceof Error ? error.message : String(error);
    // The name is the client's text for an unknown tool: quoted and cut, never a log line of its own.
    const name = reason === 'unknown-tool' ? JSON.stringify(tool.slice(0, 128)) : tool;
    this.logger.warn(`${name} rejected (${reason}) ${describeCall(context)}: ${detail}`);
  }
}

const describeCall = ({ requestId, transport }: McpToolCompletedEvent['context']) =>
  `(request ${String(requestId)}, ${transport})`;
