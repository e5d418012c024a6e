import { readFile } from 'node:fs/promises';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import type { McpAppHtml } from '../../interfaces/mcp-app-options.interface.js';
import type { McpHandlerFn } from '../../context/mcp-handler.types.js';
import { INVALID_APP_HTML } from './mcp-apps.messages.js';

/** An HTML5 document starts with its doctype (after a byte order mark, spaces and comments). */
const HTML_DOCUMENT = /^\uFEFF?\s*(?:<!--[\s\S]*?-->\s*)*<!doctype html[\s>]/i;

function assertHtmlDocument(html: string, where: string, what: string): void {
  if (!HTML_DOCUMENT.test(html)) {
    throw new McpDefinitionError(
      INVALID_APP_HTML(where, `${what} is not an HTML5 document (it must start with <!DOCTYPE html>)`),
    );
  }
}

/**
 * The read handler of an `@McpApp` from its `html`: inline HTML, checked once; a file, read and
 * checked once, at startup (a missing or unreadable file fails it, naming the file); or a
 * function, called for every read with the provider as `this`, which must resolve to a string.
 */
export async function appHtmlHandler(html: McpAppHtml, instance: object, where: string): Promise<McpHandlerFn> {
  if (typeof html === 'string') {
    assertHtmlDocument(html, where, 'the inline html');
    return async () => html;
  }
  if (typeof html === 'function') {
    return async (_args, ctx) => {
      const text: unknown = await html.call(instance, ctx);
      if (typeof text !== 'string')
        throw new TypeError(`The html function of the MCP app on ${where} did not return a string`);
      return text;
    };
  }
  const file = (html as { file?: unknown } | null)?.file;
  if (typeof file !== 'string' && !(file instanceof URL)) {
    throw new McpDefinitionError(INVALID_APP_HTML(where, 'html must be a string, { file } or a function'));
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new McpDefinitionError(INVALID_APP_HTML(where, `cannot read ${String(file)} (${reason})`));
  }
  assertHtmlDocument(text, where, String(file));
  return async () => text;
}
