import type { McpTelemetryOptions } from './mcp-telemetry.options.js';

const FLAGS = ['tracing', 'metrics', 'recordResourceUris', 'recordTargetNames'] as const;
const PROVIDERS = { tracerProvider: 'getTracer', meterProvider: 'getMeter' } as const;

/** What is wrong with the `telemetry` group's values (its names are checked with the other groups'). */
export function telemetryOptionProblems(telemetry: McpTelemetryOptions | undefined): string[] {
  if (typeof telemetry !== 'object' || telemetry === null) return [];
  const problems: string[] = [];
  for (const flag of FLAGS) {
    const value = telemetry[flag];
    if (value !== undefined && typeof value !== 'boolean') {
      problems.push(`McpModule option 'telemetry.${flag}' must be true or false, got ${String(value)}`);
    }
  }
  const choices = {
    clientTraceContext: ['parent', 'link', 'ignore'],
    sessionIds: ['digest', 'clear', 'none'],
  } as const;
  for (const [name, allowed] of Object.entries(choices) as [keyof typeof choices, readonly string[]][]) {
    const value = telemetry[name];
    if (value !== undefined && !allowed.includes(value)) {
      problems.push(
        `McpModule option 'telemetry.${name}' must be one of ${allowed.map((v) => `'${v}'`).join(', ')}, got ${String(value)}`,
      );
    }
  }
  const max = telemetry.maxAttributeLength;
  if (max !== undefined && !(Number.isSafeInteger(max) && max >= 16)) {
    problems.push(
      `McpModule option 'telemetry.maxAttributeLength' must be an integer of at least 16, got ${String(max)}`,
    );
  }
  if (telemetry.attributes !== undefined && typeof telemetry.attributes !== 'function') {
    problems.push(`McpModule option 'telemetry.attributes' must be a function of the request`);
  }
  for (const [name, method] of Object.entries(PROVIDERS) as [keyof typeof PROVIDERS, string][]) {
    const provider = telemetry[name] as unknown as Record<string, unknown> | undefined;
    if (provider !== undefined && typeof provider?.[method] !== 'function') {
      problems.push(`McpModule option 'telemetry.${name}' must be an OpenTelemetry ${name} (with ${method}())`);
    }
  }
  return problems;
}
