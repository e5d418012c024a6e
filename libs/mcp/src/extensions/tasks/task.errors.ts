import { IntrinsicException } from '@nestjs/common';

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
