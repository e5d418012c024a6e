import { McpClientCapabilityError } from '../errors/client-request.errors.js';

type Capabilities = Record<string, unknown> | undefined;

const objectAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const child = (value as Record<string, unknown> | undefined)?.[key];
  return typeof child === 'object' && child !== null ? (child as Record<string, unknown>) : undefined;
};

/** Sampling needs `sampling`; tool use inside it needs `sampling.tools` (2025-11-25). */
export function assertCanSample(capabilities: Capabilities, params: Record<string, unknown>): void {
  const sampling = objectAt(capabilities, 'sampling');
  if (!sampling) throw new McpClientCapabilityError('sampling');
  if ((params.tools !== undefined || params.toolChoice !== undefined) && !objectAt(sampling, 'tools')) {
    throw new McpClientCapabilityError('sampling.tools');
  }
}

/**
 * Elicitation needs `elicitation`; URL mode needs `elicitation.url`. A bare `elicitation: {}`
 * means form mode only.
 */
export function assertCanElicit(capabilities: Capabilities, mode: 'form' | 'url'): void {
  const elicitation = objectAt(capabilities, 'elicitation');
  if (!elicitation) throw new McpClientCapabilityError('elicitation');
  const declaresModes = objectAt(elicitation, 'form') !== undefined || objectAt(elicitation, 'url') !== undefined;
  if (mode === 'url' && !objectAt(elicitation, 'url')) throw new McpClientCapabilityError('elicitation.url');
  if (mode === 'form' && declaresModes && !objectAt(elicitation, 'form')) {
    throw new McpClientCapabilityError('elicitation.form');
  }
}

export function assertCanListRoots(capabilities: Capabilities): void {
  if (!objectAt(capabilities, 'roots')) throw new McpClientCapabilityError('roots');
}
