/**
 * The replay guard of MRTR `requestState` (MCP 2026-07-28 multi round-trip requests): a backend
 * seam (see `McpBackend`). Every state the server seals carries a random nonce; the retry that
 * presents it consumes the nonce here, and a second presentation of the same state (a replay, on
 * any instance) finds it consumed and is refused. A nonce needs remembering only as long as its
 * state can be presented: until the state's expiry.
 * @publicApi
 */
export interface McpRequestStateNonces {
  /**
   * Consumes `nonce` in one atomic step: resolves `true` the first time it is presented, `false`
   * on every later call (from this instance or any other) until `expiresAt` (epoch ms), after
   * which the nonce may be forgotten. Rejects with `McpBackendUnavailableError` when it cannot
   * decide (an unreachable store, or one that is full): the retry is then answered 503, never
   * let through.
   */
  consume(nonce: string, expiresAt: number): Promise<boolean>;
}
