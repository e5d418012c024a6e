import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  principalDigest,
  type McpPrincipalBinding,
  type McpSessionEndListener,
  type McpSessionEndReason,
  type McpSessionPatch,
  type McpSessionRecord,
  type McpSessionStore,
} from '@nest-mcp/server/backend';
import { guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisScripts } from './redis-scripts.js';
import type { RemoteHolders } from './remote-holders.js';
import type { SessionEnds } from './session-ends.js';
import { SessionLookups, type AccessReply } from './session-lookups.js';

/** Sessions examined per expiry script; the sweep runs as many as it needs (bounded). */
const EXPIRE_BATCH = 500;
const MAX_EXPIRE_BATCHES = 1_000;
/** Decoded session records kept between requests (a record never changes after its create). */
const MAX_CACHED_RECORDS = 10_000;

/**
 * Sessions in Redis: the record as JSON in one hash field (`rec`), so fields added later (an
 * OAuth principal, ...) flow through untouched; patched facts in `p:<field>`; the activity clock
 * in the `expiry` sorted set. Every operation is one Lua script, one round trip, atomic: the cap
 * with the create, the idle check with the access and the sliding TTL, the liveness check with
 * the update, and the end with everything kept for the session.
 */
export class RedisSessionStore implements McpSessionStore {
  /**
   * The `rec` field of sessions accessed lately, decoded: the access script leaves it out of
   * its reply when the caller has it, which spares Redis the bytes and this process the parse.
   * Patched facts and the holder come with every reply, so nothing here goes stale.
   */
  private readonly records = new Map<string, Record<string, unknown>>();
  private readonly lookups: SessionLookups;

  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlMs: number,
    private readonly ends: SessionEnds,
    private readonly holders: RemoteHolders,
  ) {
    // An end anywhere (announced by the instance that ended it) forgets the record here.
    ends.listen((id) => void this.records.delete(id));
    this.lookups = new SessionLookups(
      (args) => scripts.run<AccessReply[]>('mcpAccess', ttlMs, ...args),
      (id, reply) => {
        // Another principal's lookup leaves the session (and what is cached of it) alone.
        if (Array.isArray(reply) || reply === -2) return;
        this.records.delete(id);
        if (reply === -1) ends.announce(id, 'expired');
      },
    );
  }

  async create(record: McpSessionRecord, limit: number): Promise<boolean> {
    const epoch = randomBytes(6).toString('base64url');
    const created = await this.scripts.run<number>(
      'mcpCreate',
      record.id,
      JSON.stringify(record),
      record.lastActivityAt,
      limit,
      this.ttlMs,
      epoch,
      principalDigest(record.principal) ?? '',
    );
    return created === 1;
  }

  async access(
    id: string,
    now: number,
    idleTimeoutMs: number,
    principal?: McpPrincipalBinding,
  ): Promise<McpSessionRecord | undefined> {
    const idle = Number.isFinite(idleTimeoutMs) ? idleTimeoutMs : -1;
    const cached = this.records.get(id);
    const digest = principalDigest(principal) ?? '';
    const reply = await this.lookups.lookup(id, digest, now, idle, cached !== undefined);
    return Array.isArray(reply) ? this.decode(id, reply, now, cached) : undefined;
  }

  async update(id: string, patch: McpSessionPatch): Promise<boolean> {
    const pairs: string[] = [];
    for (const [name, value] of Object.entries(patch)) if (value !== undefined) pairs.push(name, JSON.stringify(value));
    return (await this.scripts.run<number>('mcpUpdate', id, ...pairs)) === 1;
  }

  async touch(ids: readonly string[], now: number): Promise<void> {
    for (let i = 0; i < ids.length; i += EXPIRE_BATCH) {
      await this.scripts.run('mcpTouch', now, this.ttlMs, ...ids.slice(i, i + EXPIRE_BATCH));
    }
  }

  async end(id: string, reason: McpSessionEndReason): Promise<boolean> {
    this.records.delete(id);
    const ended = (await this.scripts.run<number>('mcpEnd', id, reason)) === 1;
    if (ended) this.ends.announce(id, reason);
    return ended;
  }

  async expireIdle(cutoff: number): Promise<number> {
    let ended = 0;
    for (let batch = 0; batch < MAX_EXPIRE_BATCHES; batch++) {
      const [scanned, ...expired] = await this.scripts.run<[number, ...string[]]>(
        'mcpExpire',
        cutoff,
        Date.now(),
        EXPIRE_BATCH,
      );
      for (const id of expired) this.ends.announce(id, 'expired');
      ended += expired.length;
      if (scanned < EXPIRE_BATCH) break;
    }
    return ended;
  }

  count(): Promise<number> {
    return guarded(this.redis.zcard(this.keys.expiry));
  }

  /** Ends made here are told when their script returns; ends elsewhere, as `SessionEnds` hears them. */
  onEnded(listener: McpSessionEndListener): void {
    this.ends.listen(listener);
  }

  /** The record from the session hash's fields: `rec` (or the cached one), then each `p:<field>` over it. */
  private decode(id: string, fields: string[], now: number, cached?: Record<string, unknown>): McpSessionRecord {
    let record = cached ?? {};
    const patched: Record<string, unknown> = {};
    let holder: string | undefined;
    for (let i = 0; i < fields.length; i += 2) {
      const name = fields[i];
      const value = fields[i + 1];
      if (name === 'rec') record = this.remember(id, JSON.parse(value) as Record<string, unknown>);
      else if (name === 'holder') holder = value;
      else if (name.startsWith('p:')) patched[name.slice(2)] = JSON.parse(value) as unknown;
    }
    const instance = holder?.split(' ')[0];
    this.holders.note(id, instance !== undefined && instance !== this.scripts.instanceId);
    // Copied key by key: in V8 a spread followed by more properties costs about a microsecond
    // per property, and this runs for every request.
    const session: Record<string, unknown> = {};
    for (const key of Object.keys(record)) session[key] = record[key];
    for (const key of Object.keys(patched)) session[key] = patched[key];
    session.id = id;
    session.lastActivityAt = now;
    return session as unknown as McpSessionRecord;
  }

  private remember(id: string, record: Record<string, unknown>): Record<string, unknown> {
    // The oldest entry makes room: a session not seen lately just decodes its record again.
    if (this.records.size >= MAX_CACHED_RECORDS) this.records.delete(this.records.keys().next().value!);
    this.records.set(id, record);
    return record;
  }
}
