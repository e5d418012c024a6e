/** The error codes of a Bearer challenge (RFC 6750 §3.1). */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** One `WWW-Authenticate: Bearer ...` challenge. */
export interface BearerChallenge {
  /** The Protected Resource Metadata URL (RFC 9728 §5.1). */
  readonly resourceMetadata: string;
  /** Scopes the request needs (RFC 6750 §3). */
  readonly scope?: readonly string[];
  readonly error?: BearerErrorCode;
  readonly errorDescription?: string;
}

/** RFC 7230 quoted-string: backslash and double quote escaped, control characters dropped. */
const quoted = (value: string): string =>
  // eslint-disable-next-line no-control-regex
  `"${value.replace(/[\x00-\x1f\x7f]/g, '').replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E in `error_description`: others become spaces. */
const descriptionText = (value: string): string => value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ');

/**
 * The value of a `WWW-Authenticate` header for a Bearer challenge, with the parameters MCP
 * clients read: `error` (when there is one), `error_description`, `scope` and
 * `resource_metadata`.
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.error && challenge.errorDescription) {
    params.push(`error_description=${quoted(descriptionText(challenge.errorDescription))}`);
  }
  if (challenge.scope && challenge.scope.length > 0) params.push(`scope=${quoted(challenge.scope.join(' '))}`);
  params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  return `Bearer ${params.join(', ')}`;
}
