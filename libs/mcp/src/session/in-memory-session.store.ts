import { Injectable } from '@nestjs/common';
import type { McpSessionRecord, McpSessionStore } from './mcp-session.interface.js';

/**
 * The default session store: one process, records in a `Map` (never a plain object, so ids like
 * `__proto__` are just unknown keys).
 */
@Injectable()
export class InMemorySessionStore implements McpSessionStore {
  private readonly sessions = new Map<string, McpSessionRecord>();

  async create(record: McpSessionRecord): Promise<void> {
    this.sessions.set(record.id, { ...record });
  }

  async get(id: string): Promise<McpSessionRecord | undefined> {
    return this.sessions.get(id);
  }

  async update(id: string, patch: Partial<Omit<McpSessionRecord, 'id'>>): Promise<McpSessionRecord | undefined> {
    const record = this.sessions.get(id);
    if (!record) return undefined;
    Object.assign(record, patch);
    return record;
  }

  async touch(id: string, at: number): Promise<void> {
    const record = this.sessions.get(id);
    if (record) record.lastActivityAt = at;
  }

  async delete(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  async findIdleSince(cutoff: number): Promise<string[]> {
    const idle: string[] = [];
    for (const record of this.sessions.values()) {
      if (record.lastActivityAt < cutoff) idle.push(record.id);
    }
    return idle;
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }
}
