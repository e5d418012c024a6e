import { randomBytes } from 'node:crypto';

/** 192 bits from the OS CSPRNG, base64url: 32 visible-ASCII characters (docs/decisions/0004-sessions.md). */
export const generateSessionId = (): string => randomBytes(24).toString('base64url');

const WELL_FORMED_SESSION_ID = /^[\x21-\x7E]{1,256}$/;

/** Malformed ids are refused before any store lookup. */
export const isWellFormedSessionId = (id: unknown): id is string =>
  typeof id === 'string' && WELL_FORMED_SESSION_ID.test(id);
