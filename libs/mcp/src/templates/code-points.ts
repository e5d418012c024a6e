// RFC 6570 counts prefix lengths in Unicode characters; JavaScript strings count UTF-16 units.

/** The first `length` Unicode characters (code points) of `text`; a pair is never split. */
export function prefixOf(text: string, length: number): string {
  let end = 0;
  for (let count = 0; count < length && end < text.length; count++) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, end);
}

/** Whether `text` has at most `length` Unicode characters. */
export const fitsPrefix = (text: string, length: number): boolean => prefixOf(text, length).length === text.length;
