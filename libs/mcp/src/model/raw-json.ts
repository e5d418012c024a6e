import { randomBytes } from 'node:crypto';

/**
 * A value already serialized: {@link stringifyJson} splices its text into the message as it
 * is, so a value answered many times (the result of a completed task, polled) is serialized
 * once. Elsewhere (a plain `JSON.stringify`) it serializes as the value its text holds, so a
 * path that does not know it still writes the right JSON.
 */
export class RawJson {
  /** @param text one complete JSON value, as `JSON.stringify` writes it */
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return splicing ? mark(splicing, this) : (JSON.parse(this.text) as unknown);
  }
}

/**
 * The placeholders stand in for raw values while `JSON.stringify` runs. They start with a NUL
 * and carry a secret drawn once per process, so no string a client sends can pose as one.
 */
const PLACEHOLDER_PREFIX = `\u0000raw-json:${randomBytes(12).toString('hex')}:`;

/**
 * The raw values the innermost `stringifyJson` call met, in the order `JSON.stringify` visited
 * them: a placeholder's index is its value's place here. JSON.stringify is synchronous, so the
 * innermost call's list is the one active.
 */
let splicing: RawJson[] | undefined;

/** Stands in for `raw` in the text being written: its placeholder. */
function mark(parts: RawJson[], raw: RawJson): string {
  parts.push(raw);
  return PLACEHOLDER_PREFIX + (parts.length - 1);
}

/** `JSON.stringify(value)`, with every {@link RawJson} inside written as its text. */
export function stringifyJson(value: unknown): string {
  const parts: RawJson[] = [];
  // A toJSON of the value may itself call this: each call splices its own placeholders.
  const outer = splicing;
  splicing = parts;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    splicing = outer;
  }
  if (parts.length === 0) return text;
  // JSON.stringify writes values in the order it visits them, so the placeholders appear in
  // the text in the order they were marked: one pass from left to right replaces them all.
  let spliced = '';
  let from = 0;
  parts.forEach((raw, index) => {
    // A placeholder is written as a JSON string: quoted, its NUL escaped.
    const placeholder = JSON.stringify(PLACEHOLDER_PREFIX + index);
    const at = text.indexOf(placeholder, from);
    spliced += text.slice(from, at) + raw.text;
    from = at + placeholder.length;
  });
  return spliced + text.slice(from);
}
