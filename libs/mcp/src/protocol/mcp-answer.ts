/**
 * What the dispatcher answers for one inbound payload: the response (or batch) serialized once,
 * and the HTTP status it rides on. Transports write `json` as it is.
 */
export interface McpAnswer {
  readonly json: string;
  /** 200 for request-level answers; the error's own status for transport-level ones (docs/errors.md). */
  readonly status: number;
  /** Headers that go with that status (`Retry-After`, ...). */
  readonly headers?: Readonly<Record<string, string>>;
}
