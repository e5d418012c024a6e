import { Injectable } from '@nestjs/common';
import { McpInvalidParamsException, McpResourceService, ResourceNotificationService } from '@app/mcp';
import { NOTES_URI } from './notes.resources.js';
import { noteUri, NotesStore, type Note } from './notes.store.js';

/**
 * Creates notes: stores one, publishes it as the resource `db://notes/<id>` (a runtime resource,
 * so `list_changed` follows) and tells the subscribers of `db://notes`. Shared by the model's
 * `notes.create` and the notes board's `notes.board.add`.
 */
@Injectable()
export class NotesPublisher {
  constructor(
    private readonly store: NotesStore,
    private readonly resources: McpResourceService,
    private readonly notifications: ResourceNotificationService,
  ) {}

  async create(title: string, body: string): Promise<{ id: string; uri: string }> {
    const note = await this.store.create(title, body);
    const uri = noteUri(note.id);
    this.resources.register(uri, () => this.read(note.id), {
      name: title,
      description: `The note '${title}'`,
      mimeType: 'application/json',
      requiredScopes: ['notes:read'],
    });
    await this.notifications.notifyResourceUpdated(NOTES_URI);
    return { id: note.id, uri };
  }

  private async read(id: string): Promise<Note> {
    const note = await this.store.get(id);
    if (!note) throw new McpInvalidParamsException(`Note '${id}' was deleted`);
    return note;
  }
}
