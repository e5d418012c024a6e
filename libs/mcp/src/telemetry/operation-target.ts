/** What an inbound request is about, for its span name and attributes. */
export interface OperationTarget {
  /** `tools/call`: the tool's name. */
  readonly tool?: string;
  /** `prompts/get`: the prompt's name. */
  readonly prompt?: string;
  /** `resources/read`, `resources/subscribe`, `resources/unsubscribe`: the URI. */
  readonly uri?: string;
}

const NONE: OperationTarget = {};

/** The target named by a request's params, read without trusting their shape. */
export function targetOf(method: string, params: unknown): OperationTarget {
  if (typeof params !== 'object' || params === null) return NONE;
  const p = params as { name?: unknown; uri?: unknown };
  switch (method) {
    case 'tools/call':
      return typeof p.name === 'string' ? { tool: p.name } : NONE;
    case 'prompts/get':
      return typeof p.name === 'string' ? { prompt: p.name } : NONE;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return typeof p.uri === 'string' ? { uri: p.uri } : NONE;
    default:
      return NONE;
  }
}
