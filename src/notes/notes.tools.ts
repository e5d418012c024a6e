import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpCtx,
  McpResourceService,
  McpTool,
  RequireScopes,
  ResourceNotificationService,
  toolError,
  type McpElicitResult,
  type McpRequestContext,
} from '@app/mcp';
import { clientCannotAnswer } from './client-input.js';
import { CreateNoteInput, CreateNoteOutput, DeleteNoteInput, UpdateNoteInput, UpdateNoteOutput } from './notes.dto.js';
import { NOTES_URI } from './notes.resources.js';
import { noteUri, NotesStore } from './notes.store.js';
import { NotesPublisher } from './notes.publisher.js';
import { NOTES_BOARD_URI } from './board/notes-board.app.js';

/** Tools that change notes, and tell exactly the interested sessions about it. They need `notes:write`. */
@RequireScopes('notes:write')
@Injectable()
export class NotesTools {
  constructor(
    private readonly store: NotesStore,
    private readonly resources: McpResourceService,
    private readonly notifications: ResourceNotificationService,
    private readonly publisher: NotesPublisher,
  ) {}

  @McpTool({
    name: 'notes.create',
    title: 'Create a note',
    description: 'Creates a note and publishes it as the resource db://notes/<id>.',
    input: CreateNoteInput,
    output: CreateNoteOutput,
    // Hosts with MCP Apps show the notes board, with the new note on it.
    ui: { resourceUri: NOTES_BOARD_URI },
  })
  create(@McpArgs() { title, body }: CreateNoteInput): Promise<CreateNoteOutput> {
    return this.publisher.create(title, body);
  }

  @McpTool({
    name: 'notes.update',
    title: 'Update a note',
    description: 'Replaces the body of a note; subscribers of db://notes/<id> are notified.',
    input: UpdateNoteInput,
    output: UpdateNoteOutput,
  })
  async update(@McpArgs() { id, body }: UpdateNoteInput) {
    const note = await this.store.update(id, body);
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
    if (!(await this.store.delete(id))) return toolError(`Note '${id}' does not exist`);
    await this.resources.unregister(noteUri(id));
    await this.notifications.notifyResourceUpdated(NOTES_URI);
    return { id, deleted: true };
  }

  @McpTool({
    name: 'notes.clear',
    title: 'Delete every note',
    description:
      'Deletes every note after the user confirms it in a form the client shows (the notes that existed when it asked, and no others). Needs a client that can elicit.',
    annotations: { destructiveHint: true },
  })
  async clear(@McpCtx() ctx: McpRequestContext) {
    // The consent covers the notes it names: in the modern era this method runs again on the
    // retry, so the ids asked about travel in the (signed) round state, and a note created
    // between the question and the answer is not deleted by a yes given before it existed.
    const ids = ctx.roundState.get<string[]>('ids') ?? (await this.store.list()).map((note) => note.id);
    if (ids.length === 0) return { deleted: 0 };
    ctx.roundState.set('ids', ids);
    let answer: McpElicitResult;
    try {
      // Legacy era: a request pushed to the client. Modern era: an input_required round.
      answer = await ctx.elicit(
        {
          mode: 'form',
          message: `Delete all ${ids.length} notes? This cannot be undone.`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Delete every note' } },
            required: ['confirm'],
          },
        },
        { key: 'confirm' },
      );
    } catch (error) {
      if (clientCannotAnswer(error))
        return toolError('This client cannot show a confirmation form, so nothing was deleted');
      throw error;
    }
    if (answer.action !== 'accept' || answer.content?.confirm !== true) return { deleted: 0, confirmed: false };
    let deleted = 0;
    for (const id of ids) {
      if (!(await this.store.delete(id))) continue;
      deleted++;
      await this.resources.unregister(noteUri(id));
    }
    await this.notifications.notifyResourceUpdated(NOTES_URI);
    return { deleted, confirmed: true };
  }
}
