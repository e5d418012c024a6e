/** RFC 5424 severities, as MCP names them, least severe first. @publicApi */
export const MCP_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

const SEVERITY = new Map<string, number>(MCP_LOG_LEVELS.map((level, index) => [level, index]));

export const isLogLevel = (value: unknown): value is McpLogLevel => typeof value === 'string' && SEVERITY.has(value);

/** True when a message at `level` passes a session's `minimum` (everything passes without one). */
export const passesLogLevel = (level: McpLogLevel, minimum: McpLogLevel | undefined): boolean =>
  minimum === undefined || SEVERITY.get(level)! >= SEVERITY.get(minimum)!;
