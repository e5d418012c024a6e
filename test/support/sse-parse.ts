/** One server-sent event as the test clients see it. */
export interface ParsedSseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Parses one SSE block (the text between blank lines) per the SSE rules: comment lines are
 * skipped, one leading space of a value is dropped, data lines are joined by `\n`. A block of
 * comments only is not an event.
 */
export function parseSseBlock(block: string): ParsedSseEvent | undefined {
  const event: ParsedSseEvent = { data: '' };
  const dataLines: string[] = [];
  let hasField = false;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    hasField = true;
    if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
    else if (field === 'data') dataLines.push(value);
  }
  event.data = dataLines.join('\n');
  return hasField ? event : undefined;
}
