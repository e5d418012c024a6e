import { SetMetadata } from '@nestjs/common';
import { MCP_RESOURCE_METADATA } from '../mcp.constants.js';
import type { McpResourceOptions } from '../interfaces/mcp-resource-options.interface.js';

/**
 * Declares a provider method as the read handler of a resource with an exact URI. The method
 * receives `({ uri }, ctx)` and returns the content: a string (text), any other value (sent as
 * JSON text), or a full `{ contents: [...] }` read result.
 * @publicApi
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_METADATA, options);
