import { McpClientCapabilityError, McpClientUnreachableError, McpMissingClientCapabilityException } from '@app/mcp';

/**
 * Whether a question to the client (elicitation, sampling) failed because this client cannot
 * answer it: it declared no such capability (either era), or nothing can carry the question to
 * it. A tool then answers with a tool error instead of failing the call.
 */
export const clientCannotAnswer = (error: unknown): boolean =>
  error instanceof McpClientCapabilityError ||
  error instanceof McpClientUnreachableError ||
  error instanceof McpMissingClientCapabilityException;
