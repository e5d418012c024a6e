import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import type { McpIcon } from '../interfaces/mcp-icon.interface.js';

const SIZE = /^(any|\d+x\d+)$/;

/**
 * Checks declared icons at startup (MCP 2025-11-25): `src` is an https or `data:` URI, `sizes`
 * an array of `<w>x<h>` or `any` (clients reject a string), `theme` light or dark.
 */
export function assertValidIcons(icons: McpIcon[] | undefined, where: string): void {
  if (icons === undefined) return;
  if (!Array.isArray(icons)) throw new McpDefinitionError(`Icons on ${where} must be an array`);
  for (const icon of icons) {
    const src = icon?.src;
    if (typeof src !== 'string' || !/^(https:\/\/|data:)/i.test(src)) {
      throw new McpDefinitionError(`Icon on ${where}: src must be an https:// or data: URI, got '${String(src)}'`);
    }
    if (icon.sizes !== undefined && (!Array.isArray(icon.sizes) || !icon.sizes.every((size) => SIZE.test(size)))) {
      throw new McpDefinitionError(`Icon on ${where}: sizes must be an array of '<width>x<height>' or 'any'`);
    }
    if (icon.theme !== undefined && icon.theme !== 'light' && icon.theme !== 'dark') {
      throw new McpDefinitionError(`Icon on ${where}: theme must be 'light' or 'dark'`);
    }
  }
}
