import { Injectable } from '@nestjs/common';
import { join } from 'node:path';
import { McpApp } from '@app/mcp';
import { projectRoot } from '../../project-root.js';

export const NOTES_BOARD_URI = 'ui://notes/board';

/**
 * The board's HTML: the bundle of ./ui/ that `npm run build` (and `npm start`, when it is
 * missing or stale) writes with scripts/build-apps.mjs. The same path from src/ (tests) and
 * from dist/src/ (the built gateway).
 */
export const NOTES_BOARD_HTML = join(projectRoot(), 'dist-apps', 'notes-board.html');

/**
 * The notes board, an MCP App: hosts that render apps show it for `notes.board` and
 * `notes.create`. Its view lists the notes, adds one with the app-only `notes.board.add` and
 * refreshes when the notes change. It reaches nothing outside the host (no `csp` domains: the
 * restrictive default), and its HTML is read once, at startup.
 */
@McpApp({
  uri: NOTES_BOARD_URI,
  name: 'Notes board',
  description: 'Every note on a board, with a form to add one; it refreshes when notes are created or deleted.',
  html: { file: NOTES_BOARD_HTML },
  ui: { prefersBorder: true },
})
@Injectable()
export class NotesBoardApp {}
