import { context, SpanStatusCode, type Attributes, type Context, type Histogram, type Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  ATTR_RESULT_TYPE,
  ERROR_TYPE_CANCELLED,
  ERROR_TYPE_TOOL_ERROR,
} from './semconv.js';

/** How an inbound request or notification ended. */
export interface McpOperationOutcome {
  /** The JSON-RPC error it was answered with. */
  readonly error?: { readonly code: number; readonly message: string };
  /** A tool result with `isError: true`. */
  readonly toolError?: boolean;
  /** Cancelled before it was answered (by the client, or by the transport losing it). */
  readonly cancelled?: boolean;
  /** Known only once it ran (`initialize` negotiates it). */
  readonly protocolVersion?: string;
  /** Known only once it ran (`initialize` creates it). */
  readonly sessionId?: string;
  /** A modern result's `resultType` other than `complete` (`input_required`, `task`). */
  readonly resultType?: string;
}

/**
 * One inbound request or notification being served: its SERVER span (when tracing) and its
 * entry in `mcp.server.operation.duration` (when metrics are on).
 */
export interface McpOperation {
  /** Runs `work` with the span active, so the handler's own spans (and the library's) nest under it. */
  run<T>(work: () => T): T;
  /** Ends the span and records the duration; once. */
  end(outcome: McpOperationOutcome): void;
}

/** The operation of a build with telemetry off: nothing at all. */
export const NO_OPERATION: McpOperation = {
  run: (work) => work(),
  end: () => undefined,
};

/** The `error.type` of an outcome, per the conventions; undefined for a success. */
export function errorTypeOf(outcome: McpOperationOutcome): string | undefined {
  if (outcome.cancelled) return ERROR_TYPE_CANCELLED;
  if (outcome.error) return String(outcome.error.code);
  return outcome.toolError ? ERROR_TYPE_TOOL_ERROR : undefined;
}

/** How an operation records the values it learns at its end. */
export interface OperationRecording {
  /** The recorded form of a session id; undefined records none. */
  sessionId(id: string): string | undefined;
  /** A string bounded in length. */
  text(value: string): string;
}

const AS_GIVEN: OperationRecording = { sessionId: (id) => id, text: (value) => value };

export class RecordedOperation implements McpOperation {
  /** When it began (only timed when the duration is recorded). */
  private readonly started: number;
  private ended = false;

  constructor(
    /** The SERVER span and its context (where `run` puts the work); undefined when not traced. */
    private readonly traced: { readonly span: Span; readonly context: Context } | undefined,
    /**
     * The duration histogram and the metric's attributes so far (method, target, transport),
     * completed at the end; undefined when not measured.
     */
    private readonly timed: { readonly duration: Histogram; readonly attributes: Attributes } | undefined,
    private readonly knownSessionId: boolean,
    /** When the message arrived, if the transport said (`performance.now()` time). */
    receivedAt?: number,
    /** How late values are recorded: a session id (digest by default), a bounded string. */
    private readonly recording: OperationRecording = AS_GIVEN,
  ) {
    this.started = timed ? (receivedAt ?? performance.now()) : 0;
  }

  run<T>(work: () => T): T {
    return this.traced ? context.with(this.traced.context, work) : work();
  }

  end(outcome: McpOperationOutcome): void {
    if (this.ended) return;
    this.ended = true;
    const type = errorTypeOf(outcome);
    const errorType = type === undefined ? undefined : this.recording.text(type);
    const span = this.traced?.span;
    if (span?.isRecording()) {
      if (outcome.sessionId !== undefined && !this.knownSessionId) {
        const recorded = this.recording.sessionId(outcome.sessionId);
        if (recorded !== undefined) span.setAttribute(ATTR_MCP_SESSION_ID, recorded);
      }
      if (outcome.protocolVersion !== undefined)
        span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, this.recording.text(outcome.protocolVersion));
      if (outcome.resultType !== undefined) span.setAttribute(ATTR_RESULT_TYPE, outcome.resultType);
      if (errorType !== undefined) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType);
        if (outcome.error) span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, String(outcome.error.code));
        span.setStatus(
          outcome.error
            ? { code: SpanStatusCode.ERROR, message: this.recording.text(outcome.error.message) }
            : { code: SpanStatusCode.ERROR },
        );
      }
    }
    span?.end();
    if (!this.timed) return;
    const { duration, attributes } = this.timed;
    if (outcome.protocolVersion !== undefined)
      attributes[ATTR_MCP_PROTOCOL_VERSION] = this.recording.text(outcome.protocolVersion);
    if (errorType !== undefined) {
      attributes[ATTR_ERROR_TYPE] = errorType;
      if (outcome.error) attributes[ATTR_RPC_RESPONSE_STATUS_CODE] = String(outcome.error.code);
    }
    duration.record((performance.now() - this.started) / 1000, attributes);
  }
}
