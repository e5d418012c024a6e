/** `aud` as a list (a string or an array of strings; anything else counts as none). */
export const audiencesOf = (aud: unknown): string[] =>
  typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((value) => typeof value === 'string') : [];

/** The granted scopes: `scope` (space-separated, RFC 9068 / RFC 7662), else an `scp` array. */
export function scopesOf(claims: Record<string, unknown>): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter(Boolean);
  if (Array.isArray(claims.scp)) return claims.scp.filter((value): value is string => typeof value === 'string');
  if (typeof claims.scp === 'string') return claims.scp.split(' ').filter(Boolean);
  return [];
}
