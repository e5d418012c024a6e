import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpInvalidParamsException,
  McpResourceService,
  McpTool,
  ResourceNotificationService,
  toolError,
} from '@app/mcp';
import { CreateNoteInput, CreateNoteOutput, DeleteNoteInput, UpdateNoteInput, UpdateNoteOutput } from './notes.dto.js';
import { NOTES_URI } from './notes.resources.js';
import { noteUri, NotesStore, type Note } from './notes.store.js';

/** Tools that change notes, and tell exactly the interested sessions about it. */
@Injectable()
export class NotesTools {
  constructor(
    private readonly store: NotesStore,
    private readonly resources: McpResourceService,
    private readonly notifications: ResourceNotificationService,
  ) {}

  @McpTool({
    name: 'notes.create',
    title: 'Create a note',
    description: 'Creates a note and publishes it as the resource db://notes/<id>.',
    input: CreateNoteInput,
    output: CreateNoteOutput,
  })
  async create(@McpArgs() { title, body }: CreateNoteInput): Promise<CreateNoteOutput> {
    const note = this.store.create(title, body);
    const uri = noteUri(note.id);
    this.resources.register(uri, () => this.read(note.id), {
      name: title,
      description: `The note '${title}'`,
      mimeType: 'application/json',
    });
    await this.notifications.notifyResourceUpdated(NOTES_URI);
    return { id: note.id, uri };
  }

  @McpTool({
    name: 'notes.update',
    title: 'Update a note',
    description: 'Replaces the body of a note; subscribers of db://notes/<id> are notified.',
    input: UpdateNoteInput,
    output: UpdateNoteOutput,
  })
  async update(@McpArgs() { id, body }: UpdateNoteInput) {
    const note = this.store.update(id, body);
    if (!note) return toolError(`Note '${id}' does not exist`);
    await this.notifications.notifyResourceUpdated(noteUri(id));
    return { id, uri: noteUri(id), updatedAt: note.updatedAt };
  }

  @McpTool({
    name: 'notes.delete',
    title: 'Delete a note',
    description: 'Deletes a note and removes its resource.',
    input: DeleteNoteInput,
    annotations: { destructiveHint: true },
  })
  async delete(@McpArgs() { id }: DeleteNoteInput) {
    if (!this.store.delete(id)) return toolError(`Note '${id}' does not exist`);
    await this.resources.unregister(noteUri(id));
    await this.notifications.notifyResourceUpdated(NOTES_URI);
    return { id, deleted: true };
  }

  private read(id: string): Note {
    const note = this.store.get(id);
    if (!note) throw new McpInvalidParamsException(`Note '${id}' was deleted`);
    return note;
  }
}
