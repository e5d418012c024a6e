import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool, RequireScopes } from '@app/mcp';
import { CreateNoteInput, CreateNoteOutput } from '../notes.dto.js';
import { NotesPublisher } from '../notes.publisher.js';
import { noteUri, NotesStore } from '../notes.store.js';
import { NOTES_BOARD_URI } from './notes-board.app.js';
import { NotesBoardOutput } from './notes-board.dto.js';

/** The notes board's tools: the one that shows it, and the one its form calls. */
@Injectable()
export class NotesBoardTools {
  constructor(
    private readonly store: NotesStore,
    private readonly publisher: NotesPublisher,
  ) {}

  @RequireScopes('notes:read')
  @McpTool({
    name: 'notes.board',
    title: 'Show the notes board',
    description:
      'Shows every note on the notes board, where the user can add notes (hosts with MCP Apps render it; others get the list).',
    output: NotesBoardOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // The model and the board itself (which calls it to refresh) both use it.
    ui: { resourceUri: NOTES_BOARD_URI, visibility: ['model', 'app'] },
  })
  async board(): Promise<NotesBoardOutput> {
    return { notes: (await this.store.list()).map(({ id, title }) => ({ id, title, uri: noteUri(id) })) };
  }

  @RequireScopes('notes:write')
  @McpTool({
    name: 'notes.board.add',
    title: 'Add a note from the board',
    description: 'Adds a note from the notes board form.',
    input: CreateNoteInput,
    output: CreateNoteOutput,
    // App-only: the board's form calls it; the model creates notes with notes.create.
    ui: { resourceUri: NOTES_BOARD_URI, visibility: ['app'] },
  })
  add(@McpArgs() { title, body }: CreateNoteInput): Promise<CreateNoteOutput> {
    return this.publisher.create(title, body);
  }
}
