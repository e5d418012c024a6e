/** `elicitation/create` in form mode: ask the user for structured input. @publicApi */
export interface McpElicitFormParams {
  mode?: 'form';
  message: string;
  /** A flat object schema of primitive properties (MCP restricts it). Never ask for secrets. */
  requestedSchema: Record<string, unknown>;
}

/** `elicitation/create` in URL mode (2025-11-25): send the user to a page. @publicApi */
export interface McpElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  /** Generated when omitted. */
  elicitationId?: string;
}

/** What the user did. @publicApi */
export interface McpElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `sampling/createMessage` parameters (messages, maxTokens, and the optional rest). @publicApi */
export interface McpSamplingParams {
  messages: Record<string, unknown>[];
  maxTokens: number;
  [key: string]: unknown;
}

/** The model's answer to a sampling request. @publicApi */
export interface McpSamplingResult {
  role: string;
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

/** One root the client exposes. @publicApi */
export interface McpRoot {
  uri: string;
  name?: string;
  [key: string]: unknown;
}

/** Options of one server→client request. @publicApi */
export interface McpClientRequestOptions {
  /** Legacy era: how long to wait for the client. @default the module's `clientRequestTimeoutMs` (60 s) */
  timeoutMs?: number;
  /**
   * Modern era: the key of this ask in `inputRequests` / `inputResponses`. It must be the same
   * on every round. @default `<elicitation|sampling|roots>-<n>` by call order
   */
  key?: string;
}
