import { Injectable } from '@nestjs/common';
import { McpArgs, McpInvalidParamsException, McpPrompt, RequireScopes } from '@app/mcp';
import { NotesStore } from './notes.store.js';

/** A prompt over one note: it reads the note, so it needs `notes:read`. */
@RequireScopes('notes:read')
@Injectable()
export class NotesPrompts {
  constructor(private readonly store: NotesStore) {}

  @McpPrompt({
    name: 'summarize-note',
    title: 'Summarize a note',
    description: 'Asks the model to summarize one note.',
    arguments: [{ name: 'id', description: 'The id of the note', required: true }],
  })
  async summarizeNote(@McpArgs('id') id: string) {
    const note = await this.store.get(id);
    if (!note) throw new McpInvalidParamsException(`Note '${id}' does not exist`);
    return `Summarize this note.\n\nTitle: ${note.title}\n\n${note.body}`;
  }
}
