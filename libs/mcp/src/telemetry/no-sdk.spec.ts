import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { context, propagation, ProxyTracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { memoryTelemetry } from '../../../../test/support/otel-memory.js';
import { McpTelemetry, type McpOperationStart } from './mcp-telemetry.js';
import { NO_OPERATION } from './mcp-operation.js';
import { telemetryCatalog } from './recorded-values.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const call = (params: Record<string, unknown> = { name: 'echo', arguments: {} }): McpOperationStart => ({
  method: 'tools/call',
  id: 1,
  params,
  transport: 'streamable-http',
  request: { httpVersionMajor: 1, httpVersionMinor: 1, headers: {} },
});

/**
 * Without an SDK, a propagator or an ambient span (this file's process: the API's globals as a
 * bare application leaves them), the tracer of the API's proxy could only make the invalid no-op
 * span: a request's operation does not ask it. What the proxy would make otherwise still is.
 */
describe('telemetry with the API alone', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('does not ask the no-op tracer for a span: nothing would record or carry it', () => {
    const startSpan = jest.spyOn(ProxyTracer.prototype, 'startSpan');
    const telemetry = new McpTelemetry();
    expect(telemetry.startOperation(call())).toBe(NO_OPERATION);
    expect(
      telemetry.startOperation(call({ name: 'echo', _meta: { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01` } })),
    ).toBe(NO_OPERATION);
    expect(startSpan).not.toHaveBeenCalled();
  });

  it('still carries a client’s trace context once a propagator reads it, with no SDK', () => {
    const telemetry = new McpTelemetry();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const operation = telemetry.startOperation(
      call({ name: 'echo', _meta: { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01` } }),
    );
    expect(operation).not.toBe(NO_OPERATION);
    expect(operation.run(() => trace.getSpanContext(context.active())?.traceId)).toBe(TRACE_ID);
  });

  // Last: the memory SDK installs a context manager and a propagator for the rest of the file.
  it('records with an SDK registered after the module was made', async () => {
    const served = telemetryCatalog(
      (method) => method === 'tools/call',
      () => true,
      () => false,
    );
    const telemetry = new McpTelemetry({}, 10, served);
    const memory = memoryTelemetry();
    trace.setGlobalTracerProvider(memory.tracerProvider);
    telemetry.startOperation(call()).end({});
    expect(memory.spans().map((span) => span.name)).toEqual(['tools/call echo']);
    await memory.shutdown();
  });
});
