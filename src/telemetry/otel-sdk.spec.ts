import { describe, expect, it } from '@jest/globals';
import { telemetryPlan, withinTime } from './otel-sdk.js';

describe('telemetryPlan (whether the gateway loads the OpenTelemetry SDK at all)', () => {
  it('is off, so nothing is loaded, without an OTLP endpoint or Prometheus', () => {
    expect(telemetryPlan({}, false)).toBeUndefined();
    // Variables the SDK would read once started do not start it.
    expect(
      telemetryPlan(
        { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_on' },
        false,
      ),
    ).toBeUndefined();
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false)).toBeUndefined();
  });

  it('exports both signals over OTLP with the general endpoint', () => {
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, false)).toEqual({
      traces: true,
      otlpMetrics: true,
      prometheus: false,
    });
  });

  it('exports only the signal whose own endpoint is set', () => {
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, false)).toEqual({
      traces: true,
      otlpMetrics: false,
      prometheus: false,
    });
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:4318/v1/metrics' }, false)).toEqual({
      traces: false,
      otlpMetrics: true,
      prometheus: false,
    });
  });

  it('starts for Prometheus alone, with no OTLP export', () => {
    expect(telemetryPlan({}, true)).toEqual({ traces: false, otlpMetrics: false, prometheus: true });
  });

  it('honours OTEL_SDK_DISABLED, and refuses it beside Prometheus', () => {
    expect(
      telemetryPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, false),
    ).toBeUndefined();
    expect(() => telemetryPlan({ OTEL_SDK_DISABLED: 'true' }, true)).toThrow(/OTEL_SDK_DISABLED.*MCP_PROMETHEUS/);
    expect(
      telemetryPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' }, false),
    ).toBeDefined();
  });
});

describe('withinTime (how long the shutdown waits for the flush)', () => {
  const never = new Promise<void>(() => undefined);

  it('ends when the work ends', async () => {
    await expect(withinTime(Promise.resolve(), 60_000)).resolves.toBeUndefined();
  });

  it('stops waiting as soon as the collector is seen unreachable, long before the time bound', async () => {
    let unreachable = false;
    const waiting = withinTime(never, 60_000, () => unreachable);
    let done = false;
    void waiting.then(() => (done = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    unreachable = true;
    // Checked every 100 ms: it ends at the next check, not after 60 s.
    await waiting;
    expect(done).toBe(true);
  });
});
