import { McpException } from '../../errors/mcp.exception.js';
import { JsonRpcErrorCode } from '../../model/json-rpc.js';

/**
 * `-32602` for a task id this caller cannot see: unknown, expired, or another caller's. One
 * answer for all three, so a task id reveals nothing about tasks the caller does not own.
 * @publicApi
 */
export class McpTaskNotFoundException extends McpException {
  constructor() {
    super(
      JsonRpcErrorCode.InvalidParams,
      'Failed to retrieve task: Task not found',
      'No task with this id exists for this caller (unknown, or its time to live lapsed)',
    );
  }
}

/** `-32602`: 2025-11-25 `tasks/cancel` of a task that already ended. @publicApi */
export class McpTaskAlreadyTerminalException extends McpException {
  constructor(status: string) {
    super(
      JsonRpcErrorCode.InvalidParams,
      `Cannot cancel task: already in terminal status '${status}'`,
      'A task that completed, failed or was cancelled never changes',
      { status },
    );
  }
}
