import { redactSecrets } from './redact.js';

/**
 * The most characters of one log message (after escaping): the rest is cut and counted. Log
 * lines carry client text (a request id, a tool name, a tool's error text), and a client must
 * not be able to write megabytes into the server's logs with one request.
 */
export const MAX_LOG_MESSAGE_CHARS = 4096;
/** The most stack frames kept from one error in a log entry. */
export const MAX_LOG_STACK_FRAMES = 50;

/**
 * Characters that end or bend a log line in some reader: C0 controls (CR and LF among them), DEL,
 * C1 controls (NEL, U+0085, ends a line in some viewers) and the Unicode line and paragraph
 * separators.
 */
// eslint-disable-next-line no-control-regex
const LINE_BENDING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** A line of a V8 stack that names a frame ("    at fn (file:1:2)"), not the error's text. */
const FRAME_LINE = /^\s+at\s/;

/**
 * `text` with every line-bending character written as an escape (`\n`, `\r`, `\t`, `\u0085`...),
 * so it stays on the line it was written in: text a client chose cannot start a line that reads
 * like one of the server's own. Backslashes are left alone, so escaping twice changes nothing.
 */
export function escapeLogText(text: string): string {
  return text.replace(
    LINE_BENDING,
    (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** `text` cut to at most `max` characters in all, saying how long it was: cutting twice changes nothing. */
function bounded(text: string, max: number, length = text.length): string {
  if (text.length <= max && length === text.length) return text;
  const note = `… [${length} characters in all]`;
  return `${text.slice(0, Math.max(0, max - note.length))}${note}`;
}

/**
 * A log message fit for one line: secrets redacted (see `redactSecrets`), line-bending
 * characters escaped, at most {@link MAX_LOG_MESSAGE_CHARS} characters. The one place every log
 * line of the module that may carry client text goes through (through `McpLogger`), and what
 * a console logger of an application can apply to every line it writes (`McpConsoleLogger`).
 * Applying it twice changes nothing.
 */
export function toLogLine(text: string): string {
  // Cut well past the bound before the regular expressions run: a secret that straddles this
  // first cut lies beyond what the line keeps anyway.
  const head = text.length > 4 * MAX_LOG_MESSAGE_CHARS ? text.slice(0, 4 * MAX_LOG_MESSAGE_CHARS) : text;
  return bounded(escapeLogText(redactSecrets(head)), MAX_LOG_MESSAGE_CHARS, head === text ? undefined : text.length);
}

/**
 * A stack fit for a log entry: its frames each on their own line (escaped, at most
 * {@link MAX_LOG_STACK_FRAMES}), and everything before the first frame (the error's own text,
 * possibly a client's, possibly several lines) on one line, as `toLogLine` writes it. With
 * `framesOnly`, that text is left out (the message of the entry carries it already).
 */
export function toLogStack(stack: string, framesOnly = false): string {
  const lines = stack.split('\n');
  let first = lines.findIndex((line) => FRAME_LINE.test(line));
  if (first === -1) first = lines.length;
  const frames = lines.slice(first, first + MAX_LOG_STACK_FRAMES).map((line) => bounded(escapeLogText(line), 512));
  if (lines.length - first > MAX_LOG_STACK_FRAMES)
    frames.push(`    ... ${lines.length - first - MAX_LOG_STACK_FRAMES} more frames`);
  const text = lines.slice(0, first).join('\n');
  return (framesOnly || text === '' ? frames : [toLogLine(text), ...frames]).join('\n');
}
