import { Injectable } from '@nestjs/common';
import { McpToolHook } from './mcp-tool-hook.decorator.js';
import type { McpToolCompletedEvent, McpToolFailedEvent, McpToolHookHandler } from './mcp-tool-hook.interface.js';

/** Counters of one tool. @publicApi */
export interface McpToolMetrics {
  count: number;
  successes: number;
  failures: number;
  minDurationMs: number;
  avgDurationMs: number;
  maxDurationMs: number;
}

interface Totals {
  count: number;
  successes: number;
  failures: number;
  min: number;
  max: number;
  sum: number;
}

/**
 * Counts calls per tool: successes, failures and min/avg/max duration. Add it to `providers`
 * and read `snapshot()` (the reference gateway serves it as `system://tool-metrics`).
 * @publicApi
 */
@McpToolHook()
@Injectable()
export class McpToolMetricsHook implements McpToolHookHandler {
  private readonly totals = new Map<string, Totals>();

  onToolCompleted({ tool, durationMs }: McpToolCompletedEvent): void {
    this.record(tool, durationMs, true);
  }

  onToolFailed({ tool, durationMs }: McpToolFailedEvent): void {
    this.record(tool, durationMs, false);
  }

  /** The metrics of every tool called so far, by name. */
  snapshot(): Record<string, McpToolMetrics> {
    const out: Record<string, McpToolMetrics> = {};
    for (const [tool, t] of [...this.totals].sort(([a], [b]) => (a < b ? -1 : 1))) {
      out[tool] = {
        count: t.count,
        successes: t.successes,
        failures: t.failures,
        minDurationMs: round(t.min),
        avgDurationMs: round(t.sum / t.count),
        maxDurationMs: round(t.max),
      };
    }
    return out;
  }

  private record(tool: string, durationMs: number, success: boolean): void {
    const t = this.totals.get(tool) ?? { count: 0, successes: 0, failures: 0, min: Infinity, max: 0, sum: 0 };
    t.count += 1;
    if (success) t.successes += 1;
    else t.failures += 1;
    t.min = Math.min(t.min, durationMs);
    t.max = Math.max(t.max, durationMs);
    t.sum += durationMs;
    this.totals.set(tool, t);
  }
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;
