import { IntrinsicException } from '@nestjs/common';
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

/*
 * The reasons a task's signal carries. A handler ends by throwing them (`throw ctx.signal.reason`,
 * as docs/tasks.md shows): they extend `IntrinsicException` so that Nest's fallback exception
 * filter does not log an expected stop as an unexpected error with its stack.
 */

/** The reason a task's signal carries when it was cancelled with `tasks/cancel`. @publicApi */
export class McpTaskCancelledError extends IntrinsicException {
  constructor() {
    super('The task was cancelled by request');
    this.name = 'McpTaskCancelledError';
  }
}

/** The reason a task's signal carries when it ended without its handler: time to live, shutdown. @publicApi */
export class McpTaskAbandonedError extends IntrinsicException {
  constructor(why: string) {
    super(why);
    this.name = 'McpTaskAbandonedError';
  }
}
