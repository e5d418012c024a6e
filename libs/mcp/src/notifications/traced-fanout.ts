import type { McpDeliveryReport, McpFanout, McpListKind } from '../backend/mcp-fanout.js';
import type { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { LIBRARY_PREFIX } from '../telemetry/semconv.js';

/** The audience counts a fan-out span ends with. */
export const ATTR_AUDIENCE_SESSIONS = `${LIBRARY_PREFIX}.notification.sessions`;
export const ATTR_AUDIENCE_LISTENERS = `${LIBRARY_PREFIX}.notification.listeners`;

/**
 * The backend's fan-out with one PRODUCER span per notification (not one per recipient), ended
 * with its audience: the legacy sessions and the modern listeners it reached or queued for.
 * With tracing off it is the backend's own fan-out, untouched.
 */
export function traceFanout(fanout: McpFanout, telemetry: McpTelemetry): McpFanout {
  if (!telemetry.tracing) return fanout;
  const traced = (method: string, uri: string | undefined, send: () => Promise<McpDeliveryReport>) => {
    const span = telemetry.startFanout(method, uri);
    return send().then(
      (report) => {
        span.end({ [ATTR_AUDIENCE_SESSIONS]: report.sessions, [ATTR_AUDIENCE_LISTENERS]: report.listeners });
        return report;
      },
      (error: unknown) => {
        span.end(undefined, { message: error instanceof Error ? error.message : String(error) });
        throw error;
      },
    );
  };
  return {
    resourceUpdated: (uri: string) => traced('notifications/resources/updated', uri, () => fanout.resourceUpdated(uri)),
    listChanged: (kind: McpListKind) =>
      traced(`notifications/${kind}/list_changed`, undefined, () => fanout.listChanged(kind)),
    addListener: (listener) => fanout.addListener(listener),
  };
}
