import { Injectable } from '@nestjs/common';
import { McpInvalidParamsException, McpResource, RequireScopes } from '@app/mcp';
import { noteUri, NotesStore } from './notes.store.js';

export const NOTES_URI = 'db://notes';
export const LATEST_NOTE_URI = 'db://notes/latest';

/** The collection of notes and the latest note, as resources. Reading them needs `notes:read`. */
@RequireScopes('notes:read')
@Injectable()
export class NotesResources {
  constructor(private readonly store: NotesStore) {}

  @McpResource({
    uri: NOTES_URI,
    name: 'Notes',
    description: 'Every note: an array of { id, title, uri }.',
    mimeType: 'application/json',
  })
  async list() {
    return (await this.store.list()).map(({ id, title }) => ({ id, title, uri: noteUri(id) }));
  }

  @McpResource({
    uri: LATEST_NOTE_URI,
    name: 'Latest note',
    description: 'The most recently created or updated note.',
    mimeType: 'application/json',
  })
  async latest() {
    const note = await this.store.latest();
    if (!note) throw new McpInvalidParamsException('No notes exist yet');
    return note;
  }
}
