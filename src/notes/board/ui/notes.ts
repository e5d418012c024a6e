import type { CallToolResult } from '@modelcontextprotocol/client';

/** A note as the board shows it (the `notes.board` tool's `structuredContent.notes` items). */
export interface BoardNote {
  id: string;
  title: string;
}

const isBoardNote = (value: unknown): value is BoardNote =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as BoardNote).id === 'string' &&
  typeof (value as BoardNote).title === 'string';

/**
 * The notes a tool result lists, when it is a `notes.board` result; `undefined` for any other
 * result (a linked tool such as `notes.create` shows the board too, and the board then asks for
 * the list itself).
 */
export function notesOf(result: CallToolResult): BoardNote[] | undefined {
  const notes = (result.structuredContent as { notes?: unknown } | undefined)?.notes;
  return Array.isArray(notes) && notes.every(isBoardNote) ? notes : undefined;
}

/** The text of a result, for a status line (a tool error's message). */
export function textOf(result: CallToolResult): string {
  return result.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join(' ')
    .trim();
}
