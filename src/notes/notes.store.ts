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

/** The demo's database: notes in memory, in creation order. */
@Injectable()
export class NotesStore {
  private readonly notes = new Map<string, Note>();
  private latestId?: string;

  create(title: string, body: string): Note {
    const now = new Date().toISOString();
    const note: Note = { id: randomUUID(), title, body, createdAt: now, updatedAt: now };
    this.notes.set(note.id, note);
    this.latestId = note.id;
    return note;
  }

  update(id: string, body: string): Note | undefined {
    const note = this.notes.get(id);
    if (!note) return undefined;
    note.body = body;
    note.updatedAt = new Date().toISOString();
    this.latestId = id;
    return note;
  }

  delete(id: string): boolean {
    if (!this.notes.delete(id)) return false;
    if (this.latestId === id) this.latestId = this.mostRecentlyTouched()?.id;
    return true;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  list(): Note[] {
    return [...this.notes.values()];
  }

  /** The most recently created or updated note. */
  latest(): Note | undefined {
    return this.latestId === undefined ? undefined : this.notes.get(this.latestId);
  }

  private mostRecentlyTouched(): Note | undefined {
    let latest: Note | undefined;
    for (const note of this.notes.values()) if (!latest || note.updatedAt >= latest.updatedAt) latest = note;
    return latest;
  }
}
