import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { toBackendError } from '@nest-mcp/redis';
import type { RedisTarget } from '../redis-target.js';
import { NotesStore, type Note } from './notes.store.js';

/**
 * Notes in Redis, shared by every instance of the gateway: one hash (id → note as JSON) and the
 * id of the latest note, in one hash slot (`{gw:notes}`), so that a change writes both in one
 * MULTI on a Redis Cluster too. Each change is one round trip; the latest note after a delete is found
 * again among those left. A Redis outage rejects with the library's backend-unavailable error,
 * so the tool or resource that asked answers 503 with Retry-After, like the MCP backend does.
 */
@Injectable()
export class RedisNotesStore extends NotesStore implements OnApplicationShutdown {
  private readonly redis: Redis | Cluster;
  private readonly notesKey: string;
  private readonly latestKey: string;

  constructor(target: RedisTarget, keyPrefix: string) {
    super();
    const options = { commandTimeout: 2_000, maxRetriesPerRequest: 1 };
    this.redis = target.clusterNodes
      ? new Cluster(
          target.clusterNodes.map((node) => {
            const at = node.lastIndexOf(':');
            return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
          }),
          { redisOptions: { ...options, ...target.nodeOptions } },
        )
      : new Redis(target.url!, options);
    this.redis.on('error', () => undefined);
    this.notesKey = `${keyPrefix}{gw:notes}`;
    this.latestKey = `${keyPrefix}{gw:notes}:latest`;
  }

  async create(title: string, body: string): Promise<Note> {
    return this.guarded(async () => {
      const now = new Date().toISOString();
      const note: Note = { id: randomUUID(), title, body, createdAt: now, updatedAt: now };
      await this.redis.multi().hset(this.notesKey, note.id, JSON.stringify(note)).set(this.latestKey, note.id).exec();
      return note;
    });
  }

  async update(id: string, body: string): Promise<Note | undefined> {
    return this.guarded(async () => {
      const note = await this.get(id);
      if (!note) return undefined;
      const updated = { ...note, body, updatedAt: new Date().toISOString() };
      await this.redis.multi().hset(this.notesKey, id, JSON.stringify(updated)).set(this.latestKey, id).exec();
      return updated;
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.guarded(async () => {
      if ((await this.redis.hdel(this.notesKey, id)) === 0) return false;
      if ((await this.redis.get(this.latestKey)) === id) {
        const rest = await this.list();
        const latest = rest.reduce<Note | undefined>((a, b) => (!a || b.updatedAt >= a.updatedAt ? b : a), undefined);
        if (latest) await this.redis.set(this.latestKey, latest.id);
        else await this.redis.del(this.latestKey);
      }
      return true;
    });
  }

  async get(id: string): Promise<Note | undefined> {
    return this.guarded(async () => {
      const json = await this.redis.hget(this.notesKey, id);
      return json ? (JSON.parse(json) as Note) : undefined;
    });
  }

  async list(): Promise<Note[]> {
    return this.guarded(async () => {
      const notes = Object.values(await this.redis.hgetall(this.notesKey)).map((json) => JSON.parse(json) as Note);
      return notes.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    });
  }

  async latest(): Promise<Note | undefined> {
    return this.guarded(async () => {
      const id = await this.redis.get(this.latestKey);
      return id ? this.get(id) : undefined;
    });
  }

  /** Runs Redis work; its outage becomes `McpBackendUnavailableError` (503), anything else stays as is. */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toBackendError(error);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
