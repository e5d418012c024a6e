/**
 * A URI template that cannot be used: malformed under RFC 6570, or well-formed but impossible
 * to match unambiguously. The message names the template and the problem; callers wrap it
 * (a definition error at registration, `-32602` when the template arrives on the wire).
 * @publicApi
 */
export class UriTemplateError extends Error {
  override readonly name = 'UriTemplateError';

  constructor(
    readonly template: string,
    readonly reason: string,
  ) {
    super(`Invalid URI template '${template}': ${reason}`);
  }
}
