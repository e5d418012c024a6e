import { randomBytes } from 'node:crypto';
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
import { POST_LOGS_ASKED, runAskingForKeys } from './asked-keys.js';
import { byBucket, ENDING_BUCKET, ENDING_PARTS, sessionScriptKeys, type RedisKeys } from './redis-keys.js';
import type { RedisClient, RedisScripts } from './redis-scripts.js';
import type { PendingEnds } from './pending-ends.js';
import type { RemoteHolders } from './remote-holders.js';
import type { SessionEnds } from './session-ends.js';
import { SessionLookups, type AccessReply } from './session-lookups.js';

/** Sessions examined per expiry script; the sweep runs as many as it needs (bounded). */
const EXPIRE_BATCH = 500;
const MAX_EXPIRE_BATCHES = 1_000;
/** Decoded session records kept between requests (a record never changes after its create). */
const MAX_CACHED_RECORDS = 10_000;

/** A session's decoded record, the `p:` fields (name, value, ...) last merged over it, and the result. */
interface CachedSession {
  readonly record: Record<string, unknown>;
  readonly patches: readonly string[];
  /** The record with the patches over it, its id set; never handed out (callers get copies). */
  readonly merged: Record<string, unknown>;
}

/**
 * Sessions in Redis: the record as JSON in one hash field (`rec`), so fields added later (an
 * OAuth principal, ...) flow through untouched; patched facts in `p:<field>`; the activity clock
 * in the bucket's sorted set (`x:{b<n>}`). Every operation on a session is one Lua script in its
 * bucket's slot, one round trip, atomic: the idle check with the access and the sliding TTL, the
 * liveness check with the update, and the end with everything kept for the session (what lies
 * outside the bucket is finished by `PendingEnds`). The cap is a counter of its own (`sessions`),
 * a place taken before the create and given back by the end: concurrent creates never pass it,
 * and no script on a request's path touches it.
 */
export class RedisSessionStore implements McpSessionStore {
  /**
   * The `rec` field of sessions accessed lately, decoded: the access script leaves it out of
   * its reply when the caller has it, which spares Redis the bytes and this process the parse.
   * Patched facts and the holder come with every reply, so nothing here goes stale.
   */
  private readonly records = new Map<string, CachedSession>();
  /** The lookups of this turn, one batch per bucket (one script call per slot). */
  private readonly lookups = new Map<string, SessionLookups>();

  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly ttlMs: number,
    private readonly ends: SessionEnds,
    private readonly holders: RemoteHolders,
    private readonly pending: PendingEnds,
  ) {
    // An end anywhere (announced by the instance that ended it) forgets the record here.
    ends.listen((id) => void this.records.delete(id));
  }

  private lookupsOf(tag: string): SessionLookups {
    let lookups = this.lookups.get(tag);
    if (!lookups) {
      lookups = new SessionLookups(
        (args) => {
          // Every key a lookup may touch (it ends a session found idle): groups of five, sid first.
          const sids = args.filter((_, i) => i % 5 === 0).map(String);
          const keys = sessionScriptKeys(this.keys, tag, sids, ENDING_PARTS, ENDING_BUCKET);
          return runAskingForKeys<AccessReply[]>(
            (declared) => this.scripts.run('mcpAccess', declared, this.ttlMs, ...args),
            keys,
            POST_LOGS_ASKED,
          );
        },
        (id, reply) => {
          // Another principal's lookup leaves the session (and what is cached of it) alone.
          if (Array.isArray(reply) || reply === -2) return;
          this.records.delete(id);
          if (reply === -1) this.ends.announce(id, 'expired');
        },
      );
      this.lookups.set(tag, lookups);
    }
    return lookups;
  }

  async create(record: McpSessionRecord, limit: number): Promise<boolean> {
    const epoch = randomBytes(6).toString('base64url');
    const reserved = await this.scripts.run<number>('mcpReserve', [this.keys.sessionCount], limit);
    if (reserved !== 1) return false;
    try {
      await this.scripts.run<number>(
        'mcpCreate',
        [this.keys.bucketOfSession(record.id), this.keys.session(record.id)],
        record.id,
        JSON.stringify(record),
        record.lastActivityAt,
        this.ttlMs,
        epoch,
        principalDigest(record.principal) ?? '',
      );
    } catch (error) {
      // The place goes back (best effort: Redis failing now may fail this too).
      this.redis.decr(this.keys.sessionCount).catch(() => undefined);
      throw error;
    }
    return true;
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
    const tag = this.keys.bucketOf(id);
    const reply = await this.lookupsOf(tag).lookup(id, digest, now, idle, cached !== undefined);
    // Found idle and ended: its work outside the bucket is done before the caller hears of it,
    // as after an explicit end (a notification sent next no longer counts it).
    if (reply === -1) await this.pending.drain(tag).catch((error: unknown) => this.pending.failed(error));
    return Array.isArray(reply) ? this.decode(id, reply, now, cached) : undefined;
  }

  async update(id: string, patch: McpSessionPatch): Promise<boolean> {
    const pairs: string[] = [];
    for (const [name, value] of Object.entries(patch)) if (value !== undefined) pairs.push(name, JSON.stringify(value));
    const keys = [this.keys.bucketOfSession(id), this.keys.session(id)];
    return (await this.scripts.run<number>('mcpUpdate', keys, id, ...pairs)) === 1;
  }

  async touch(ids: readonly string[], now: number): Promise<void> {
    const calls: Promise<unknown>[] = [];
    for (const [tag, group] of byBucket(this.keys, ids, (id) => id)) {
      for (let i = 0; i < group.length; i += EXPIRE_BATCH) {
        const batch = group.slice(i, i + EXPIRE_BATCH);
        const keys = sessionScriptKeys(this.keys, tag, batch, ['hash', 'subs', 'out']);
        calls.push(this.scripts.run('mcpTouch', keys, now, this.ttlMs, ...batch));
      }
    }
    await Promise.all(calls);
  }

  async end(id: string, reason: McpSessionEndReason): Promise<boolean> {
    this.records.delete(id);
    const tag = this.keys.bucketOf(id);
    const entry = await runAskingForKeys<string | 0>(
      (keys) => this.scripts.run('mcpEnd', keys, id, reason),
      sessionScriptKeys(this.keys, tag, [id], ENDING_PARTS, ENDING_BUCKET),
      POST_LOGS_ASKED,
    );
    if (entry === 0) return false;
    this.ends.announce(id, reason);
    // The session has ended whatever happens next: work outside its bucket that fails now is
    // left queued for the next sweep (logged), not reported as a failed end.
    await this.pending.finish(tag, entry).catch((error: unknown) => this.pending.failed(error));
    return true;
  }

  /** Every bucket at once (one call per bucket, in parallel), each as many batches as it needs. */
  async expireIdle(cutoff: number): Promise<number> {
    const counts = await Promise.all(this.keys.allBuckets().map((tag) => this.expireBucket(tag, cutoff)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  private async expireBucket(tag: string, cutoff: number): Promise<number> {
    let ended = 0;
    for (let batch = 0; batch < MAX_EXPIRE_BATCHES; batch++) {
      // The candidates first, so that the script declares the keys of each (see
      // sessionScriptKeys); it checks each again.
      const ids = await guarded(
        this.redis.zrangebyscore(this.keys.bucket(tag), '-inf', `(${cutoff}`, 'LIMIT', 0, EXPIRE_BATCH),
      );
      if (ids.length === 0) break;
      const now = Date.now();
      const entries = await runAskingForKeys<string[]>(
        (keys) => this.scripts.run('mcpExpire', keys, cutoff, now, ...ids),
        sessionScriptKeys(this.keys, tag, ids, ENDING_PARTS, ENDING_BUCKET),
        POST_LOGS_ASKED,
      );
      for (const entry of entries) this.ends.announce((JSON.parse(entry) as { sid: string }).sid, 'expired');
      ended += entries.length;
      if (ids.length < EXPIRE_BATCH) break;
    }
    // This sweep's ends, and any an instance left unfinished.
    await this.pending.drain(tag);
    return ended;
  }

  /** The sessions of every bucket (their activity indexes): exact, whatever a cap reservation does. */
  async count(): Promise<number> {
    const counts = await guarded(
      Promise.all(this.keys.allBuckets().map((tag) => this.redis.zcard(this.keys.bucket(tag)))),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** Ends made here are told when their script returns; ends elsewhere, as `SessionEnds` hears them. */
  onEnded(listener: McpSessionEndListener): void {
    this.ends.listen(listener);
  }

  /**
   * The record from the session hash's fields: `rec` (or the cached one), then each `p:<field>`
   * over it. The merged record is kept with the patched fields it was built from: while a
   * session's replies bring the same ones (a session is patched a few times in its life, looked
   * up on every request), a request costs one copy of it, not a parse and a merge.
   */
  private decode(id: string, fields: string[], now: number, cached?: CachedSession): McpSessionRecord {
    let record = cached?.record;
    let holder: string | undefined;
    let patchedFields = 0;
    let samePatches = cached !== undefined;
    for (let i = 0; i < fields.length; i += 2) {
      const name = fields[i];
      if (name === 'rec') {
        record = JSON.parse(fields[i + 1]) as Record<string, unknown>;
        samePatches = false;
      } else if (name === 'holder') holder = fields[i + 1];
      else if (name.startsWith('p:')) {
        if (samePatches) {
          const raw = cached!.patches;
          samePatches = raw[patchedFields] === name && raw[patchedFields + 1] === fields[i + 1];
        }
        patchedFields += 2;
      }
    }
    const instance = holder?.split(' ')[0];
    this.holders.note(id, instance !== undefined && instance !== this.scripts.instanceId);
    let merged: Record<string, unknown>;
    if (samePatches && patchedFields === cached!.patches.length) merged = cached!.merged;
    else merged = this.remember(id, record ?? {}, fields).merged;
    // A copy per caller (of an object with its properties in place: no property added after it).
    const session = { ...merged };
    session.lastActivityAt = now;
    return session as unknown as McpSessionRecord;
  }

  /** Builds and keeps the merged record of a session from its record and its hash's `p:` fields. */
  private remember(id: string, record: Record<string, unknown>, fields: string[]): CachedSession {
    const patches: string[] = [];
    const patched: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i += 2) {
      const name = fields[i];
      if (!name.startsWith('p:')) continue;
      patches.push(name, fields[i + 1]);
      patched[name.slice(2)] = JSON.parse(fields[i + 1]) as unknown;
    }
    // Copied key by key: in V8 a spread followed by more properties costs about a microsecond
    // per property.
    const merged: Record<string, unknown> = {};
    for (const key of Object.keys(record)) merged[key] = record[key];
    for (const key of Object.keys(patched)) merged[key] = patched[key];
    merged.id = id;
    merged.lastActivityAt = 0;
    const entry: CachedSession = { record, patches, merged };
    // The oldest entry makes room: a session not seen lately just decodes its record again.
    if (!this.records.has(id) && this.records.size >= MAX_CACHED_RECORDS)
      this.records.delete(this.records.keys().next().value!);
    this.records.set(id, entry);
    return entry;
  }
}
