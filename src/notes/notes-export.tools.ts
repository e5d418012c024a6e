import { Inject, Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpTool, RequireScopes, textContent, type McpRequestContext } from '@app/mcp';
import { GATEWAY_CONFIG, type GatewayConfig } from '../gateway.config.js';
import { ExportNotesInput, type ExportFormat } from './notes.dto.js';
import { NotesStore, type Note } from './notes.store.js';

/** Waits `ms`, or less when `signal` aborts (a cancelled export stops at once). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A long-running tool: exports every note, one step per note (`NOTES_EXPORT_STEP_MS` each). It
 * supports tasks (`taskSupport: 'optional'`), so a client that can poll one gets a task it polls
 * while the export goes on, on any instance; any other client waits in its request. The handler
 * is the same either way: it reports progress and a status message per step, and stops at once
 * when its signal aborts (`tasks/cancel`, a cancelled request, shutdown).
 */
@RequireScopes('notes:read')
@Injectable()
export class NotesExportTools {
  private running = 0;

  constructor(
    private readonly store: NotesStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @McpTool({
    name: 'notes.export',
    title: 'Export every note',
    description:
      'Exports every note as json or markdown, one step per note, reporting progress. Long: a client that can poll tasks gets a task.',
    input: ExportNotesInput,
    output: {
      type: 'object',
      properties: {
        format: { type: 'string', enum: ['json', 'markdown'] },
        count: { type: 'integer' },
        notes: { type: 'array', items: { type: 'object' } },
      },
      required: ['format', 'count', 'notes'],
    },
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
  })
  async export(@McpArgs() { format }: ExportNotesInput, @McpCtx() ctx: McpRequestContext) {
    this.running++;
    try {
      const notes = await this.store.list();
      const exported: Note[] = [];
      for (const [index, note] of notes.entries()) {
        await pause(this.config.notesExportStepMs, ctx.signal);
        ctx.signal.throwIfAborted();
        exported.push(note);
        await ctx.reportProgress(
          index + 1,
          notes.length,
          `Exported note ${index + 1} of ${notes.length}: ${note.title}`,
        );
      }
      return {
        content: [textContent(render(format, exported))],
        structuredContent: { format, count: exported.length, notes: exported },
      };
    } finally {
      this.running--;
    }
  }

  /** Exports running on this instance now (`system://metrics`). */
  get exportsRunning(): number {
    return this.running;
  }
}

function render(format: ExportFormat, notes: readonly Note[]): string {
  if (format === 'json') return JSON.stringify({ notes }, null, 2);
  const sections = notes.map((note) => `## ${note.title}\n\n${note.body}\n\n_Updated ${note.updatedAt}_`);
  return [`# Notes (${notes.length})`, ...sections].join('\n\n');
}
