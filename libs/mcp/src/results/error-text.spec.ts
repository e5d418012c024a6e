import { describe, expect, it } from '@jest/globals';
import { errorTextOf } from './error-text.js';

describe('errorTextOf', () => {
  it('joins the text blocks of an error result and leaves other blocks out', () => {
    const result = {
      content: [
        { type: 'text', text: 'disk' },
        { type: 'image', data: 'x' },
        { type: 'text', text: 'full' },
      ],
    };
    expect(errorTextOf(result)).toBe('disk full');
  });

  it('says the tool reported an error when the result has no text, or no content at all', () => {
    expect(errorTextOf({ content: [] })).toBe('The tool reported an error');
    expect(errorTextOf({})).toBe('The tool reported an error');
    expect(errorTextOf({ content: 'not blocks' })).toBe('The tool reported an error');
  });

  it('keeps at most 1,000 characters of a long text', () => {
    expect(errorTextOf({ content: [{ type: 'text', text: 'x'.repeat(5_000) }] })).toHaveLength(1_000);
  });
});
