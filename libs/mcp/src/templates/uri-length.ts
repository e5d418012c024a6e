import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';

/**
 * The longest URI (in UTF-16 code units, as `string.length` counts) that `resources/read`,
 * `resources/subscribe` and friends accept. Far above any real resource URI; it bounds the
 * work one request can ask of template matching and of the handlers behind it.
 * @publicApi
 */
export const MAX_URI_LENGTH = 8192;

/** Whether `uri` is longer than {@link MAX_URI_LENGTH}. @publicApi */
export const isUriTooLong = (uri: string): boolean => uri.length > MAX_URI_LENGTH;

/**
 * Throws `-32602` Invalid params for a URI over {@link MAX_URI_LENGTH}; call it before
 * looking the URI up. The detail gives the limit, not the URI (which may be 64 KiB of junk).
 * @publicApi
 */
export function assertUriLength(uri: string): void {
  if (isUriTooLong(uri)) {
    throw new McpInvalidParamsException(
      `URI too long: ${uri.length} characters, at most ${MAX_URI_LENGTH} are accepted`,
      {
        maxLength: MAX_URI_LENGTH,
      },
    );
  }
}
