import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TraceConsoleLogger, traceSuffix } from './trace-logger.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

/** Runs `fn` with a span of that context active (a non-recording span: no SDK needed). */
function withSpan<T>(traceFlags: TraceFlags, fn: () => T, traceId = TRACE_ID, spanId = SPAN_ID): T {
  const span = trace.wrapSpanContext({ traceId, spanId, traceFlags });
  return context.with(trace.setSpan(ROOT_CONTEXT, span), fn);
}

/** What the logger writes to stdout while `fn` runs. */
function captured(fn: () => void): string {
  let out = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return out;
}

describe('TraceConsoleLogger', () => {
  const manager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
  });

  afterAll(() => {
    manager.disable();
    context.disable();
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('appends the trace and span ids of the active span to the line', () => {
    const logger = new TraceConsoleLogger('Test', { colors: false });
    const out = withSpan(TraceFlags.SAMPLED, () => captured(() => logger.log('echo completed')));
    expect(out).toMatch(
      / LOG \[Test\] echo completed trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7\n$/,
    );
    expect(out.split('\n')).toHaveLength(2);
  });

  it('writes the ids of a span that was not sampled too', () => {
    const logger = new TraceConsoleLogger('Test', { colors: false });
    const out = withSpan(TraceFlags.NONE, () => captured(() => logger.warn('slow')));
    expect(out).toMatch(/ WARN \[Test\] slow trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7\n$/);
  });

  it('writes nothing more when no span is active, or the active one has invalid ids', () => {
    const logger = new TraceConsoleLogger('Test', { colors: false });
    const none = captured(() => logger.log('plain'));
    expect(none).toMatch(/ LOG \[Test\] plain\n$/);
    const invalid = withSpan(
      TraceFlags.SAMPLED,
      () => captured(() => logger.log('plain')),
      '0'.repeat(32),
      '0'.repeat(16),
    );
    expect(invalid).toMatch(/ LOG \[Test\] plain\n$/);
    expect(traceSuffix()).toBe('');
  });

  it('adds trace_id and span_id fields in JSON mode', () => {
    const logger = new TraceConsoleLogger('Test', { json: true, colors: false });
    const out = withSpan(TraceFlags.SAMPLED, () => captured(() => logger.log('as json')));
    expect(JSON.parse(out)).toMatchObject({
      message: 'as json',
      context: 'Test',
      trace_id: TRACE_ID,
      span_id: SPAN_ID,
    });
  });
  it('keeps a line with client text in it one line, the ids at its end', () => {
    const logger = new TraceConsoleLogger('Test', { colors: false });
    const forged = 'x\n[Nest] 1  - LOG [McpAuth] admin signed in\r\u2028';
    const out = withSpan(TraceFlags.SAMPLED, () => captured(() => logger.log(`Unknown tool ${forged}`)));
    expect(out.split('\n')).toHaveLength(2);
    expect(out).toMatch(
      / LOG \[Test\] Unknown tool x\\n\[Nest\] 1 {2}- LOG \[McpAuth\] admin signed in\\r\\u2028 trace_id=/,
    );
  });
});
