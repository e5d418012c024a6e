// The notes board, an MCP App: it runs in the host's sandboxed iframe and talks to the gateway
// only through the host (the ext-apps `App` over postMessage). It shows every note, adds one with
// the app-only tool `notes.board.add`, and refreshes when the server says the notes changed
// (`notifications/resources/list_changed`, which the host forwards).
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { BoardView } from './board-view.js';
import { notesOf, textOf } from './notes.js';

const app = new App({ name: 'notes-board', version: '1.0.0' });
const view = new BoardView();

let latestRefresh = 0;

/** Asks the server for the notes; of several refreshes in flight, only the latest one renders. */
async function refresh(): Promise<void> {
  const mine = ++latestRefresh;
  try {
    const result = await app.callServerTool({ name: 'notes.board', arguments: {} });
    if (mine !== latestRefresh) return;
    const notes = notesOf(result);
    if (result.isError || !notes) view.status(textOf(result) || 'The notes could not be listed', true);
    else view.render(notes);
  } catch (error) {
    if (mine === latestRefresh) view.status(`The notes could not be listed: ${String(error)}`, true);
  }
}

function applyHostContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

// The result of the tool the host showed the board for: the list itself (notes.board), or
// another linked tool's result (notes.create), after which the board lists the notes itself.
app.ontoolresult = (result) => {
  const notes = notesOf(result);
  if (notes) view.render(notes);
  else void refresh();
};
app.onhostcontextchanged = applyHostContext;
app.setNotificationHandler('notifications/resources/list_changed', () => void refresh());

view.onRefresh(() => void refresh());
view.onAdd(async ({ title, body }) => {
  try {
    const result = await app.callServerTool({ name: 'notes.board.add', arguments: { title, body } });
    if (result.isError) {
      view.status(textOf(result) || 'The note was not added', true);
      return false;
    }
    // The list follows when the server announces the new note (list_changed).
    view.status(`Added “${title}”.`);
    return true;
  } catch (error) {
    view.status(`The note was not added: ${String(error)}`, true);
    return false;
  }
});

await app.connect();
applyHostContext(app.getHostContext());
await refresh();
