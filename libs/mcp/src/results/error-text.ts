/** Most characters of an `isError` result's text kept where it is repeated (a hook's error, a task's status). */
const MAX_ERROR_TEXT = 1_000;

/**
 * The text of an `isError` tool result, for what reports it elsewhere (a hook's `error`, the
 * status message of a failed 2025-11-25 task): its text blocks joined, bounded in length, or a
 * plain sentence when it has none.
 */
export function errorTextOf(result: { readonly content?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as ReadonlyArray<{ text?: unknown }>) : [];
  const text = blocks
    .flatMap((block) => (typeof block?.text === 'string' && block.text !== '' ? [block.text] : []))
    .join(' ')
    .trim();
  return text.slice(0, MAX_ERROR_TEXT) || 'The tool reported an error';
}
