import { z } from 'zod';

/** What `notes.board` returns (also its `structuredContent`, which the board renders). */
export const NotesBoardOutput = z.object({
  notes: z.array(z.object({ id: z.string(), title: z.string(), uri: z.string() })),
});
export type NotesBoardOutput = z.infer<typeof NotesBoardOutput>;
