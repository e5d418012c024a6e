import { Injectable } from '@nestjs/common';
import {
  McpArgs,
  McpCtx,
  McpTool,
  RequireScopes,
  toolError,
  type McpRequestContext,
  type McpSamplingResult,
} from '@app/mcp';
import { clientCannotAnswer } from './client-input.js';
import { SummarizeNoteInput } from './notes.dto.js';
import { NotesStore } from './notes.store.js';

/**
 * A tool that asks the client's model for help: sampling, pushed to the client in the legacy era
 * and an `input_required` round in the modern era, from the same handler code.
 */
@RequireScopes('notes:read')
@Injectable()
export class NotesSummaryTools {
  constructor(private readonly store: NotesStore) {}

  @McpTool({
    name: 'notes.summarize',
    title: 'Summarize a note',
    description: "Asks the client's model (sampling) for a one-sentence summary of a note.",
    input: SummarizeNoteInput,
    annotations: { readOnlyHint: true },
  })
  async summarize(@McpArgs() { id }: SummarizeNoteInput, @McpCtx() ctx: McpRequestContext) {
    const note = await this.store.get(id);
    if (!note) return toolError(`Note '${id}' does not exist`);
    let answer: McpSamplingResult;
    try {
      answer = await ctx.sample(
        {
          messages: [{ role: 'user', content: { type: 'text', text: `Summarize in one sentence:\n\n${note.body}` } }],
          systemPrompt: 'You write short, factual summaries.',
          maxTokens: 200,
        },
        { key: 'summary' },
      );
    } catch (error) {
      if (clientCannotAnswer(error))
        return toolError('This client cannot run a model (sampling), so there is no summary');
      throw error;
    }
    const content = answer.content as { type?: string; text?: string };
    if (content?.type !== 'text' || typeof content.text !== 'string') {
      return toolError('The client answered the sampling request without text');
    }
    return { id, summary: content.text, model: answer.model };
  }
}
