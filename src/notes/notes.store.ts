import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

export interface Note {
  id: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export const noteUri = (id: string): string => `db://notes/${id}`;

/**
 * The demo's database. One process keeps notes in memory (`InMemoryNotesStore`); several
 * instances on Redis share them (`RedisNotesStore`), so a note created through one instance can
 * be updated through another.
 */
export abstract class NotesStore {
  abstract create(title: string, body: string): Promise<Note>;
  abstract update(id: string, body: string): Promise<Note | undefined>;
  abstract delete(id: string): Promise<boolean>;
  abstract get(id: string): Promise<Note | undefined>;
  /** Every note, in creation order. */
  abstract list(): Promise<Note[]>;
  /** The most recently created or updated note. */
  abstract latest(): Promise<Note | undefined>;
}

/** Notes in memory, in creation order. */
@Injectable()
export class InMemoryNotesStore extends NotesStore {
  private readonly notes = new Map<string, Note>();
  private latestId?: string;

  async create(title: string, body: string): Promise<Note> {
    const now = new Date().toISOString();
    const note: Note = { id: randomUUID(), title, body, createdAt: now, updatedAt: now };
    this.notes.set(note.id, note);
    this.latestId = note.id;
    return note;
  }

  async update(id: string, body: string): Promise<Note | undefined> {
    const note = this.notes.get(id);
    if (!note) return undefined;
    note.body = body;
    note.updatedAt = new Date().toISOString();
    this.latestId = id;
    return note;
  }

  async delete(id: string): Promise<boolean> {
    if (!this.notes.delete(id)) return false;
    if (this.latestId === id) this.latestId = this.mostRecentlyTouched()?.id;
    return true;
  }

  async get(id: string): Promise<Note | undefined> {
    return this.notes.get(id);
  }

  async list(): Promise<Note[]> {
    return [...this.notes.values()];
  }

  async latest(): Promise<Note | undefined> {
    return this.latestId === undefined ? undefined : this.notes.get(this.latestId);
  }

  private mostRecentlyTouched(): Note | undefined {
    let latest: Note | undefined;
    for (const note of this.notes.values()) if (!latest || note.updatedAt >= latest.updatedAt) latest = note;
    return latest;
  }
}
